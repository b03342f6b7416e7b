/**
 * The behaviour signals of a run, in the store actor: its events by type with their rates and its
 * busiest 10 s window (from the windows table), the binaries it executed and which of them no
 * earlier run did (folded values), and its fan-out: processes, the most children of one parent
 * (the process rollup), files, destinations and DNS names.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { readRows, sql } from '../../store/sql.js';
import type { BehaviourSignals, FanOutSignals } from './behaviour-signals.js';
import { readBinaries } from './binaries.sql.js';
import { basis, type CountSignal } from './signal-basis.js';
import type { RunSpan } from './run-span.sql.js';
import type { SignalValueKind } from './signal-values.sql.js';
import type { KindTotals } from './value-counts.sql.js';
import type { WindowCounts } from './window-counts.sql.js';

/** The behaviour signals; `totals` holds the run's file, destination and dns_name counts. */
export async function readBehaviour(
  connection: StoreConnection,
  run: string,
  facts: { span: RunSpan; windows: WindowCounts; totals: ReadonlyMap<SignalValueKind, KindTotals> },
): Promise<BehaviourSignals> {
  const { span, windows, totals } = facts;
  const minutes = span.seconds > 0 ? span.seconds / 60 : null;
  const rate = (events: number): number | null =>
    minutes === null ? null : Math.round((events / minutes) * 1000) / 1000;
  const byType = windows.types.map((row) => ({
    type: row.type,
    events: row.events,
    per_minute: rate(row.events),
    peak_10s: row.peak,
  }));
  const events = byType.reduce((sum, row) => sum + row.events, 0);
  const execs = byType.find((row) => row.type === 'execve')?.events ?? 0;
  return {
    events,
    per_minute: rate(events),
    by_type: byType,
    peak_10s: {
      events: windows.peak?.events ?? 0,
      start: windows.peak === null ? null : formatRfc3339Nanos(windows.peak.startNs),
      basis: basis(
        ['windows'],
        `the largest sum of events over types of the run's ${windows.windows} 10 s windows with events`,
      ),
    },
    binaries: await readBinaries(connection, run, execs),
    fan_out: await readFanOut(connection, run, totals),
    basis: basis(
      ['windows', 'timeline_processes'],
      "sums of the run's 10 s windows by type; rates per minute of the span from its first to its last event",
    ),
  };
}

async function readFanOut(
  connection: StoreConnection,
  run: string,
  totals: ReadonlyMap<SignalValueKind, KindTotals>,
): Promise<FanOutSignals> {
  // counts only: a process's first event lies in a column of whole events, costly to read for one id
  const [row] = await readRows<{ processes: bigint; parent: number | null; children: bigint | null }>(
    connection,
    sql`SELECT (SELECT count(DISTINCT tgid) FROM timeline_processes WHERE run_id = ${run} AND tgid >= 0) AS processes,
          widest.parent, widest.children
        FROM (SELECT 1) LEFT JOIN (
          SELECT ppid.ppid AS parent, count(DISTINCT tgid) AS children FROM timeline_processes
          WHERE run_id = ${run} AND ppid IS NOT NULL AND tgid >= 0 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1) widest ON true`,
  );
  const distinct = (kind: 'file' | 'destination' | 'dns_name', what: string): CountSignal => {
    const counted = totals.get(kind);
    return {
      value: counted?.distinct ?? 0,
      basis: basis(
        ['run_signal_values'],
        `distinct ${what}; events: the first with each of the most frequent`,
        {
          events: counted?.firstEventIds ?? [],
        },
      ),
    };
  };
  const tree = 'GET /v1/timeline?view=causality lists them';
  return {
    processes: {
      value: Number(row?.processes ?? 0),
      basis: basis(['timeline_processes'], `distinct tgid (else pid) of the run's events; ${tree}`),
    },
    max_children: {
      value: Number(row?.children ?? 0),
      parent_pid: row?.parent ?? null,
      basis: basis(['timeline_processes'], `the most distinct processes of the run naming one ppid; ${tree}`),
    },
    files: distinct(
      'file',
      "attrs.path of the run's file events (file_open, file_read, file_write, file_rename, file_unlink, secret_path)",
    ),
    destinations: distinct(
      'destination',
      "attrs.dst_ip:dst_port of the run's connections (network_connect, metadata_ip, private_cidr)",
    ),
    dns_names: distinct('dns_name', "attrs.query of the run's dns_query events"),
  };
}
