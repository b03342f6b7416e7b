/**
 * Artifacts in verify: each `artifact` (and `hook_content`) object names the address of its stored bytes; those bytes
 * must be stored and hash to it, so an edited stdout or a swapped file content is found.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { list, readRows, sql } from '../store/sql.js';
import { sha256 } from './graph-object.js';
import type { CheckedObject } from './verify-objects.js';
import type { VerifyIssues } from './verify-issues.js';

/** Checks the stored bytes behind every artifact object of the run. */
export async function verifyArtifacts(
  connection: StoreConnection,
  objects: ReadonlyMap<string, CheckedObject>,
  issues: VerifyIssues,
): Promise<void> {
  const named = [...objects.values()].filter(
    ({ object }) => object.kind === 'artifact' || object.kind === 'hook_content',
  );
  if (named.length === 0) return;
  const addresses = [...new Set(named.map(({ object }) => String(object.payload['content_hash'])))];
  const rows = await readRows<{ hash: string; content: Uint8Array }>(
    connection,
    sql`SELECT hash, content FROM artifacts WHERE hash IN (SELECT unnest(${list(addresses, VARCHAR)}))`,
  );
  const stored = new Map(rows.map((row) => [row.hash, row.content]));
  for (const { hash, object } of named) {
    const address = String(object.payload['content_hash']);
    const content = stored.get(address);
    if (content === undefined) {
      issues.error('artifact_missing', hash, `the bytes ${address} of this artifact are not stored`);
    } else if (sha256(content) !== address) {
      issues.error(
        'artifact_content_mismatch',
        hash,
        `the stored bytes of ${address} hash to ${sha256(content)}`,
      );
    }
  }
}
