/**
 * A run's events by type and its busiest 10 s window, from the windows table (kept at commit):
 * one statement over the run's 10 s windows, which the behaviour and quality signals share.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql } from '../../store/sql.js';
import { typeName } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';

/** The run's windows, summed. */
export interface WindowCounts {
  /** Every type the run has events of, the most first (ties by type code). */
  types: { type: EventType; events: number; peak: number }[];
  /** The 10 s window with the most events (the earliest of equals); null without events. */
  peak: { startNs: bigint; events: number } | null;
  /** 10 s windows with events. */
  windows: number;
}

interface WindowRow {
  type: number | null;
  events: bigint;
  peak: bigint;
  bucket_ns: bigint | null;
}

/** Sums the run's 10 s windows by type, and finds its busiest one. */
export async function readWindowCounts(connection: StoreConnection, run: string): Promise<WindowCounts> {
  // per type rows first, then one row (type null) for the busiest window, its `peak` the windows count
  const rows = await readRows<WindowRow>(
    connection,
    sql`WITH w AS MATERIALIZED (SELECT bucket_ns, type, events FROM windows WHERE run_id = ${run} AND window_s = 10)
        SELECT type, sum(events) AS events, max(events) AS peak, NULL AS bucket_ns FROM w GROUP BY type
        UNION ALL
        (SELECT NULL, events, windows, bucket_ns FROM (
           SELECT bucket_ns, sum(events) AS events, count(*) OVER () AS windows FROM w GROUP BY bucket_ns
           ORDER BY events DESC, bucket_ns LIMIT 1))`,
  );
  const busiest = rows.find((row) => row.type === null);
  return {
    types: rows
      .filter((row) => row.type !== null)
      .sort((a, b) => Number(b.events - a.events) || a.type! - b.type!)
      .map((row) => ({ type: typeName(row.type!), events: Number(row.events), peak: Number(row.peak) })),
    peak: busiest === undefined ? null : { startNs: busiest.bucket_ns!, events: Number(busiest.events) },
    windows: Number(busiest?.peak ?? 0),
  };
}
