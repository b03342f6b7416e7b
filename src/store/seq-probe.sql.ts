/**
 * Keyset positions of the events a filter selects, probed in seq windows. seq grows with the
 * table's row order, so zone maps make a bounded window cheap, while a bare `seq > after` reads
 * every row group (~13 ms at 10M events). Only positions are read: a page's other columns are read
 * afterwards by its exact range, since fetching them for every row a window's scan passes costs
 * more than the page itself (one run's 65,536-row window of 10M events: ~15 ms with every column).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, sql, type Statement } from './sql.js';

// First window, in positions; each further one is 8 times wider.
const firstWindow = 65_536n;

/**
 * The first `count` positions after `after` of the events `filter` (a condition on `events`)
 * selects, in order. `endSeq` is the next position the store will hand out: nothing is stored at
 * or beyond it, so the windows stop there.
 */
export async function probePositions(
  connection: DuckDBConnection,
  filter: Statement,
  after: bigint,
  count: number,
  endSeq: bigint,
): Promise<bigint[]> {
  let rows: { seq: bigint }[] = [];
  for (let width = firstWindow; ; width *= 8n) {
    const upper = after + width;
    rows = await readRows<{ seq: bigint }>(
      connection,
      sql`SELECT seq FROM events WHERE ${filter} AND seq > ${after} AND seq <= ${upper}
          ORDER BY seq LIMIT ${count}`,
    );
    if (rows.length >= count || upper + 1n >= endSeq) break;
  }
  return rows.map((row) => row.seq);
}
