/**
 * The capture span of a run, from the process rollup (every run event is folded into one of its
 * process rows): the behaviour rates and the coverage gaps that may have touched the run use it.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import { readRows, sql } from '../../store/sql.js';
import type { SignalSpan } from './signals.js';

/** The span in Unix nanoseconds, for queries. */
export interface RunSpan {
  firstNs: bigint | null;
  lastNs: bigint | null;
  seconds: number;
}

/** The span of the run's events. */
export async function readRunSpan(connection: StoreConnection, run: string): Promise<RunSpan> {
  const [row] = await readRows<{ first_ns: bigint | null; last_ns: bigint | null }>(
    connection,
    sql`SELECT min(first_ns) AS first_ns, max(last_ns) AS last_ns FROM timeline_processes WHERE run_id = ${run}`,
  );
  const firstNs = row?.first_ns ?? null;
  const lastNs = row?.last_ns ?? null;
  const seconds = firstNs === null || lastNs === null ? 0 : Number(lastNs - firstNs) / 1e9;
  return { firstNs, lastNs, seconds };
}

/** The span as an answer shows it. */
export function spanSignal(span: RunSpan): SignalSpan {
  const time = (ns: bigint | null): DateTimeText | null => (ns === null ? null : formatRfc3339Nanos(ns));
  return { first_event: time(span.firstNs), last_event: time(span.lastNs), seconds: span.seconds };
}
