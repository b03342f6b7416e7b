/** Window deltas into the windows table, in the store actor: one upsert per commit. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, UTINYINT, VARCHAR } from '@duckdb/node-api';
import { execute, sql, unnested } from '../store/sql.js';
import type { WindowDelta } from './window-deltas.js';

/** Sums deltas that hit the same window row, since one statement may not update a row twice. */
export function mergeWindows(deltas: readonly WindowDelta[]): WindowDelta[] {
  const merged = new Map<string, WindowDelta>();
  for (const delta of deltas) {
    const key = `${delta.runId}\u0000${delta.windowS}\u0000${delta.bucketNs}\u0000${delta.type}`;
    const row = merged.get(key);
    if (row === undefined) merged.set(key, { ...delta });
    else {
      row.events += delta.events;
      row.correlated += delta.correlated;
      row.risky += delta.risky;
      row.bytes += delta.bytes;
    }
  }
  return [...merged.values()];
}

/** Adds window deltas to their rows, creating rows as needed. */
export async function addWindows(
  connection: DuckDBConnection,
  deltas: readonly WindowDelta[],
): Promise<void> {
  const rows = mergeWindows(deltas);
  if (rows.length === 0) return;
  const numbers = (pick: (row: WindowDelta) => number | bigint): [bigint[], typeof BIGINT] => [
    rows.map((row) => BigInt(pick(row))),
    BIGINT,
  ];
  await execute(
    connection,
    sql`INSERT INTO windows SELECT ${unnested(
      [rows.map((row) => row.runId), VARCHAR],
      [rows.map((row) => row.windowS), UTINYINT],
      numbers((row) => row.bucketNs),
      [rows.map((row) => row.type), UTINYINT],
      numbers((row) => row.events),
      numbers((row) => row.correlated),
      numbers((row) => row.risky),
      numbers((row) => row.bytes),
    )}
        ON CONFLICT (run_id, window_s, bucket_ns, type) DO UPDATE SET
          events = events + excluded.events, correlated = correlated + excluded.correlated,
          risky = risky + excluded.risky, bytes = bytes + excluded.bytes`,
  );
}
