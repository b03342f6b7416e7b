/** Window deltas into the windows table, in the store actor: one upsert per commit. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, UTINYINT, VARCHAR } from '@duckdb/node-api';
import { execute, list, sql } from '../store/sql.js';
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
  const column = (pick: (row: WindowDelta) => number | bigint) =>
    list(
      rows.map((row) => BigInt(pick(row))),
      BIGINT,
    );
  await execute(
    connection,
    sql`INSERT INTO windows
        SELECT unnest(${list(
          rows.map((row) => row.runId),
          VARCHAR,
        )}), unnest(${list(
          rows.map((row) => row.windowS),
          UTINYINT,
        )}), unnest(${column((row) => row.bucketNs)}), unnest(${list(
          rows.map((row) => row.type),
          UTINYINT,
        )}), unnest(${column((row) => row.events)}), unnest(${column((row) => row.correlated)}),
          unnest(${column((row) => row.risky)}), unnest(${column((row) => row.bytes)})
        ON CONFLICT (run_id, window_s, bucket_ns, type) DO UPDATE SET
          events = events + excluded.events, correlated = correlated + excluded.correlated,
          risky = risky + excluded.risky, bytes = bytes + excluded.bytes`,
  );
}
