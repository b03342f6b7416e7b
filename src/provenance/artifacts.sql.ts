/**
 * Contents stored by hash in `artifacts`, on the store thread inside the caller's write
 * transaction: each stored once, a content stored already kept as it is.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, BLOB, BOOLEAN, VARCHAR, blobValue } from '../store/duckdb-api.js';
import { execute, fewRows, join, readRows, sql, unnested, valueRows } from '../store/sql.js';

/** A content to store: its hash, its (possibly bounded) bytes, its whole size. */
export interface ArtifactWrite {
  hash: string;
  content: Uint8Array;
  size: number;
  truncated: boolean;
}

/**
 * Inserts the artifacts not stored yet. Those stored are read first and left out: an insert that
 * looks for conflicts itself (ON CONFLICT DO NOTHING) cost ~3 ms more CPU than a plain one, measured
 * on a 20,000-artifact store; the read costs ~0.4 ms.
 */
export async function insertArtifacts(
  connection: StoreConnection,
  artifacts: readonly ArtifactWrite[],
): Promise<void> {
  // two contents with the same bytes are one artifact
  const unique = [...new Map(artifacts.map((artifact) => [artifact.hash, artifact])).values()];
  if (unique.length === 0) return;
  const stored = await readRows<{ hash: string }>(
    connection,
    // a list of values, not a subquery: DuckDB looks each up in the key's index then (0.4 ms at
    // 200,000 artifacts), where `IN (SELECT unnest(list))` scans every hash (1.2 ms, and growing)
    sql`SELECT hash FROM artifacts WHERE hash IN (${join(
      unique.map(({ hash }) => sql`${hash}`),
      ', ',
    )})`,
  );
  const known = new Set(stored.map(({ hash }) => hash));
  const fresh = unique.filter(({ hash }) => !known.has(hash));
  if (fresh.length === 0) return;
  const at = BigInt(Date.now()) * 1_000_000n;
  await execute(
    connection,
    fresh.length <= fewRows
      ? sql`INSERT INTO artifacts VALUES ${valueRows(
          fresh.map(({ hash, content, size, truncated }) => [
            hash,
            blobValue(content),
            BigInt(size),
            truncated,
            at,
          ]),
        )}`
      : sql`INSERT INTO artifacts SELECT ${unnested(
          [fresh.map(({ hash }) => hash), VARCHAR],
          [fresh.map(({ content }) => blobValue(content)), BLOB],
          [fresh.map(({ size }) => BigInt(size)), BIGINT],
          [fresh.map(({ truncated }) => truncated), BOOLEAN],
        )}, ${at}`,
  );
}
