/**
 * The windows table, in the store actor: the events that just joined their runs (at positions
 * [from, to): a commit's rows, or spooled events a binding claimed) counted into their 10 s and 60 s
 * windows, set-wise in one statement on DuckDB's threads. Positions are handed out once, so every
 * event is counted once; pending rows (no run yet) are counted when they settle.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { execute, raw, sql, type RawSql } from '../store/sql.js';
import { evidenceCode } from '../model/codes.js';
import { windowLengths } from './window-facts.js';

const [short, long] = windowLengths;
/** An instant floored to the start of its window of `windowS` seconds (negative instants too). */
const floorTo = (column: string, windowS: number): RawSql => {
  const ns = BigInt(windowS) * 1_000_000_000n;
  return raw(`${column} - ((${column} % ${ns}) + ${ns}) % ${ns}`);
};
const correlated = raw(String(evidenceCode('kernel_correlated')));

/** Adds the run events at positions [from, to) to their windows, creating rows as needed. */
export async function countWindows(connection: StoreConnection, from: bigint, to: bigint): Promise<void> {
  if (to <= from) return;
  // the 60 s windows summed from the 10 s ones (each lies in one), and MERGE: 0.6x the cost of
  // grouping every event twice and INSERT ... ON CONFLICT DO UPDATE on the windows' key
  await execute(
    connection,
    sql`MERGE INTO windows w USING (
          WITH ten AS (
            SELECT run_id, ${floorTo('time_ns', short)} AS bucket_ns, type, count(*) AS events,
              count(*) FILTER (WHERE evidence_level = ${correlated}) AS correlated,
              count(*) FILTER (WHERE risky) AS risky, coalesce(sum(bytes), 0)::BIGINT AS bytes
            FROM events WHERE seq >= ${from} AND seq < ${to} AND run_id IS NOT NULL GROUP BY ALL)
          SELECT run_id, ${raw(String(short))} AS window_s, bucket_ns, type, events, correlated, risky, bytes FROM ten
          UNION ALL
          SELECT run_id, ${raw(String(long))}, ${floorTo('bucket_ns', long)}, type, sum(events)::BIGINT,
            sum(correlated)::BIGINT, sum(risky)::BIGINT, sum(bytes)::BIGINT
          FROM ten GROUP BY ALL) c
        ON w.run_id = c.run_id AND w.window_s = c.window_s AND w.bucket_ns = c.bucket_ns AND w.type = c.type
        WHEN MATCHED THEN UPDATE SET events = w.events + c.events, correlated = w.correlated + c.correlated,
          risky = w.risky + c.risky, bytes = w.bytes + c.bytes
        WHEN NOT MATCHED THEN INSERT VALUES (c.run_id, c.window_s, c.bucket_ns, c.type, c.events, c.correlated,
          c.risky, c.bytes)`,
  );
}
