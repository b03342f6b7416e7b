/**
 * verify-host's check of a host digest lacking events: a binding that claimed some of its events
 * into a run took them out of it, and nothing else may.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, VARCHAR } from '../../store/duckdb-api.js';
import { readRows, sql, unnested } from '../../store/sql.js';
import type { VerifyIssues } from '../verify-issues.js';
import type { HostDigest } from './host-digests.sql.js';

/**
 * A host digest lacking events is honest only when bindings claimed exactly that many of its batch
 * into runs since it was committed. A claimed event gets a new seq past every seq committed before
 * (past its digest's range, where the batch's events that joined runs at commit stay), so those are
 * counted from the digest's seq_to on, and zone maps skip the older events.
 */
export async function checkClaimed(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  partial: readonly { at: number; lacking: number }[],
  found: readonly VerifyIssues[],
): Promise<void> {
  if (partial.length === 0) return;
  const lacking = partial.map(({ at }) => digests[at]!);
  const since = lacking.reduce((min, digest) => (digest.seqTo < min ? digest.seqTo : min), lacking[0]!.seqTo);
  const rows = await readRows<{ b: string; n: bigint }>(
    connection,
    sql`SELECT p.b, count(*) AS n FROM (
          SELECT regexp_extract(id, '^(.*)\\.[0-9]+$', 1) AS b, seq FROM events
          WHERE run_id IS NOT NULL AND seq >= ${since}) e
        JOIN (SELECT ${unnested(
          [lacking.map((digest) => digest.batchId), VARCHAR],
          [lacking.map((digest) => digest.seqTo), BIGINT],
        )}) p(b, t) ON e.b = p.b AND e.seq >= p.t GROUP BY p.b`,
  );
  const claimed = new Map(rows.map((row) => [row.b, Number(row.n)]));
  for (const { at, lacking: count } of partial) {
    const digest = digests[at]!;
    const moved = claimed.get(digest.batchId) ?? 0;
    if (moved !== count)
      found[at]!.error(
        'host_events_missing',
        digest.batchId,
        `the host digest seals ${digest.events} events; ${count} are gone from it and ${moved} of its batch joined runs since`,
      );
  }
}
