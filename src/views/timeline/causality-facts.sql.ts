/**
 * What the causality tree is built from, read in DuckDB: one row per (tool call, process) with its
 * events by type and first events, and the run's tool calls, whether recorded, bound or only seen
 * in events. Each costs one statement for a run of common size: a statement's fixed price, not the
 * rows it reads, is most of what a tree costs (measured: 1-2 ms each at 50 rows). Beyond that size,
 * the lists only the shown nodes need (first events, records) are read for those alone.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, VARCHAR } from '../../store/duckdb-api.js';
import { runNotFound } from '../../store/run-exists.sql.js';
import { list, readRows, sql } from '../../store/sql.js';
import { typeName } from '../../model/codes.js';
import { toolCallOf, type TimelineToolCall } from './context-records.js';
import { addCounts, addEvents, noEvents } from './event-counts.js';
import type { LineageItem } from './process-lineage.js';
import type { EventCounts } from './timeline-causality.js';
import { bindingInstant } from './timeline-sources.sql.js';
import { hiddenLoaderOpen, shownByDefault } from '../../telemetry/loader-opens.sql.js';
import { rolledUpEvents } from '../../telemetry/process-rollup.sql.js';

/** One process of one tool call (null: of no tool call), aggregated over its events. */
export interface ProcessFacts extends LineageItem {
  toolCallId: string | null;
  lastNs: bigint;
  comm: string | null;
  binary: string | null;
  argv: string[] | null;
  /** Its first events' listed fields as JSON text (ListedEventFields[]); null: not read yet. */
  firstEvents: string | null;
  /** Its loader and locale opens (src/telemetry/loader-opens.sql.ts), counted in `counts` only with `all`. */
  hiddenOpens: number;
}

/** One tool call of the run (id null: the events no binding attributed). */
export interface ToolCallFacts {
  id: string | null;
  /** The earliest of its recorded start, its bindings' instants and its first event. */
  firstNs: bigint;
  /** Capture times of its first and last events. */
  firstEventNs: bigint | null;
  lastEventNs: bigint | null;
  bindings: number;
  /** Stored by POST /v1/record. */
  recorded: boolean;
  /** Its record, when recorded and read yet. */
  record: TimelineToolCall | null;
}

/** A tool call with its processes and their events counted. */
export interface ToolCallTree extends ToolCallFacts {
  processes: ProcessFacts[];
  counts: EventCounts;
}

/** A listed event's fields as the rollup keeps them, in JSON text: time_ns as a decimal string (a JSON number would round it). */
export interface ListedEventFields {
  id: string;
  time_ns: string;
  type: number;
  evidence_level: number;
  pid: number | null;
  tgid: number | null;
  comm: string | null;
  attrs: string;
  /** A loader or locale open: listed only with `all` (absent from the rollup's lists, which hold none of a process that has one). */
  loader_locale?: boolean;
}

/** Runs with at most this many processes read their first events with them; larger ones for the shown processes only. */
const inlineEventsUpTo = 100;
/** Runs with at most this many recorded tool calls read their records with them (the tree shows 50 tool calls). */
const inlineRecordsUpTo = 50;

/** The key of a process (or of an event's process): tool call and tgid (the pid without one). */
export const processKey = (toolCallId: string | null, tgid: number | null): string =>
  JSON.stringify([toolCallId, tgid]);

/**
 * Every tool call of the run with its processes, by id: the tool calls on `side`, the processes on
 * `connection`, at once. 404 run_not_found for a run nobody named.
 */
export async function readToolCalls(
  connection: StoreConnection,
  side: StoreConnection,
  run: string,
  all: boolean,
): Promise<Map<string | null, ToolCallTree>> {
  const [[rows, hidden], processes] = await Promise.all([
    readToolCallRows(side, run).then(async (rows) => [rows, await readHiddenOpens(side, run)] as const),
    readProcesses(connection, run),
  ]);
  for (const process of processes)
    leaveOutHidden(process, hidden.get(processKey(process.toolCallId, process.tgid)) ?? 0, all);
  const calls = new Map<string | null, ToolCallTree>();
  const callOf = (id: string | null, atNs: bigint): ToolCallTree => {
    const known = calls.get(id);
    if (known !== undefined) {
      if (atNs < known.firstNs) known.firstNs = atNs;
      return known;
    }
    const call: ToolCallTree = {
      id,
      firstNs: atNs,
      firstEventNs: null,
      lastEventNs: null,
      bindings: 0,
      recorded: false,
      record: null,
      processes: [],
      counts: noEvents(),
    };
    calls.set(id, call);
    return call;
  };
  for (const row of rows) {
    const call = callOf(row.id, row.firstNs);
    call.bindings = row.bindings;
    call.recorded = row.recorded;
    call.record = row.record;
  }
  for (const process of processes) {
    const call = callOf(process.toolCallId, process.firstNs);
    call.processes.push(process);
    addCounts(call.counts, process.counts);
    if (call.firstEventNs === null || process.firstNs < call.firstEventNs)
      call.firstEventNs = process.firstNs;
    if (call.lastEventNs === null || process.lastNs > call.lastEventNs) call.lastEventNs = process.lastNs;
  }
  return calls;
}

/**
 * The run's recorded and bound tool calls, with the records of a run that has few; in the same
 * statement, whether the run is known at all. Rows come whole and are grouped here: for rows this
 * few, DuckDB's grouping costs more than the rows.
 */
async function readToolCallRows(
  connection: StoreConnection,
  run: string,
): Promise<Pick<ToolCallFacts, 'id' | 'firstNs' | 'bindings' | 'recorded' | 'record'>[]> {
  const rows = await readRows<{
    kind: 'run' | 'recorded' | 'bound';
    tool_call_id: string;
    at_ns: bigint | null;
    record: string | null;
    object_hash: string | null;
  }>(
    connection,
    sql`SELECT 'run' AS kind, run_id AS tool_call_id, NULL AS at_ns, NULL AS record, NULL AS object_hash
          FROM runs WHERE run_id = ${run}
        UNION ALL
        SELECT 'recorded', tool_call_id, started_ns,
          CASE WHEN (SELECT count(*) FROM tool_calls WHERE run_id = ${run}) <= ${inlineRecordsUpTo} THEN record END,
          object_hash
        FROM tool_calls WHERE run_id = ${run}
        UNION ALL
        SELECT 'bound', tool_call_id, ${bindingInstant}, NULL, NULL FROM bindings WHERE run_id = ${run}`,
  );
  if (!rows.some((row) => row.kind === 'run')) throw runNotFound(run);
  const calls = new Map<string, Pick<ToolCallFacts, 'id' | 'firstNs' | 'bindings' | 'recorded' | 'record'>>();
  for (const row of rows) {
    if (row.kind === 'run') continue;
    const call = calls.get(row.tool_call_id) ?? {
      id: row.tool_call_id,
      firstNs: row.at_ns!,
      bindings: 0,
      recorded: false,
      record: null,
    };
    calls.set(row.tool_call_id, call);
    if (row.at_ns! < call.firstNs) call.firstNs = row.at_ns!;
    if (row.kind === 'bound') call.bindings++;
    else {
      call.recorded = true;
      if (row.record !== null)
        call.record = toolCallOf({ record: row.record, object_hash: row.object_hash! });
    }
  }
  return [...calls.values()];
}

/**
 * One row per process of the run and tool call, from the process rollup (process-rollup.sql.ts), with
 * its events by type, and its first events when the run has few processes. ppid is its first
 * event's that has one; comm its first execve's (else its first event's) that has one; binary and
 * argv its first execve's. The counts by type come as rows of their own in the same statement.
 */
async function readProcesses(connection: StoreConnection, run: string): Promise<ProcessFacts[]> {
  const rows = await readRows<{
    tool_call_id: string | null;
    tgid: number | null;
    type: number | null;
    events: bigint | null;
    ppid: number | null;
    first_ns: bigint;
    last_ns: bigint;
    comm: string | null;
    binary: string | null;
    argv: string | null;
    first_events: string | null;
  }>(
    connection,
    sql`SELECT nullif(p.tool_call_id, '') AS tool_call_id, CAST(nullif(p.tgid, -1) AS UINTEGER) AS tgid,
          p.ppid.ppid AS ppid, p.first_ns, p.last_ns, coalesce(p.exec_comm.comm, p.comm.comm) AS comm,
          json_extract_string(p.exec.attrs, '$.path') AS binary,
          CAST(json_extract(p.exec.attrs, '$.argv') AS VARCHAR) AS argv,
          CASE WHEN (SELECT count(*) FROM timeline_processes WHERE run_id = ${run}) <= ${inlineEventsUpTo}
            THEN p.first_listed END AS first_events
        FROM timeline_processes p WHERE p.run_id = ${run}
        UNION ALL BY NAME
        SELECT nullif(tool_call_id, '') AS tool_call_id, CAST(nullif(tgid, -1) AS UINTEGER) AS tgid, type, events
        FROM timeline_process_types WHERE run_id = ${run}`,
  );
  const processes = new Map<string, ProcessFacts>();
  for (const row of rows) {
    if (row.type !== null) continue;
    processes.set(processKey(row.tool_call_id, row.tgid), {
      toolCallId: row.tool_call_id,
      tgid: row.tgid,
      ppid: row.ppid,
      firstNs: row.first_ns,
      lastNs: row.last_ns,
      comm: row.comm,
      binary: row.binary,
      argv: argvOf(row.argv),
      counts: noEvents(),
      firstEvents: row.first_events,
      hiddenOpens: 0,
    });
  }
  // counted in type order, so that the answer lists its types the same way every time
  for (const row of rows.filter((row) => row.type !== null).sort((a, b) => a.type! - b.type!)) {
    const process = processes.get(processKey(row.tool_call_id, row.tgid))!;
    addEvents(process.counts, typeName(row.type!), Number(row.events));
  }
  // in a stable order: tool calls add up their processes' counts in it
  return [...processes.values()].sort(
    (a, b) => compareNullable(a.toolCallId, b.toolCallId) || compareNullable(a.tgid, b.tgid),
  );
}

/** Ascending, null last (as DuckDB's ORDER BY). */
function compareNullable<T extends string | number>(a: T | null, b: T | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** The run's loader and locale opens by process (processKey), as the rollup keys its processes. */
async function readHiddenOpens(connection: StoreConnection, run: string): Promise<Map<string, number>> {
  const rows = await readRows<{ tool_call_id: string | null; tgid: number | null; opens: bigint }>(
    connection,
    sql`SELECT nullif(coalesce(tool_call_id, ''), '') AS tool_call_id,
          CAST(nullif(coalesce(tgid, pid, -1), -1) AS UINTEGER) AS tgid, count(*) AS opens
        FROM events WHERE run_id = ${run} AND ${hiddenLoaderOpen} GROUP BY ALL`,
  );
  return new Map(rows.map((row) => [processKey(row.tool_call_id, row.tgid), Number(row.opens)]));
}

/**
 * Notes `opens` loader and locale opens of `process`: unless `all`, they leave its counts (they are
 * file_opens), and its first events are read from the events without them (readFirstEvents).
 */
function leaveOutHidden(process: ProcessFacts, opens: number, all: boolean): void {
  process.hiddenOpens = opens;
  if (opens === 0) return;
  process.firstEvents = null;
  if (all) return;
  const left = (process.counts.by_type.file_open ?? 0) - opens;
  process.counts.total -= opens;
  if (left > 0) process.counts.by_type.file_open = left;
  else delete process.counts.by_type.file_open;
}

/**
 * Reads the first events of the `processes` that do not have them yet: from the rollup (a run with
 * many processes), or, for a process with loader and locale opens, from its events (without them
 * unless `all`, each marked), as the rollup lists them: by (time_ns, seq), the first rolledUpEvents.
 */
export async function readFirstEvents(
  connection: StoreConnection,
  run: string,
  processes: readonly ProcessFacts[],
  all: boolean,
): Promise<void> {
  const unread = processes.filter((process) => process.firstEvents === null);
  await readRolledUp(
    connection,
    run,
    unread.filter((process) => process.hiddenOpens === 0),
  );
  await readFromEvents(
    connection,
    run,
    unread.filter((process) => process.hiddenOpens > 0),
    all,
  );
}

/** The key of each of `processes`, and the distinct tgids to look them up by (-1: none). */
function keyed(processes: readonly ProcessFacts[]): { byKey: Map<string, ProcessFacts>; tgids: bigint[] } {
  return {
    byKey: new Map(processes.map((process) => [processKey(process.toolCallId, process.tgid), process])),
    tgids: [...new Set(processes.map((process) => BigInt(process.tgid ?? -1)))],
  };
}

/** The first events of processes with loader and locale opens, read from the events table. */
async function readFromEvents(
  connection: StoreConnection,
  run: string,
  processes: readonly ProcessFacts[],
  all: boolean,
): Promise<void> {
  if (processes.length === 0) return;
  const { byKey, tgids } = keyed(processes);
  const rows = await readRows<{ tool_call_id: string | null; tgid: number | null; first_events: string }>(
    connection,
    sql`SELECT nullif(p_tool_call, '') AS tool_call_id, CAST(nullif(p_tgid, -1) AS UINTEGER) AS tgid,
          CAST(to_json(list(struct_pack(id := id, time_ns := CAST(time_ns AS VARCHAR), type := type,
            evidence_level := evidence_level, pid := pid, tgid := tgid, comm := comm, attrs := attrs,
            loader_locale := ${hiddenLoaderOpen}) ORDER BY time_ns, seq)) AS VARCHAR) AS first_events
        FROM (SELECT *, coalesce(tool_call_id, '') AS p_tool_call, coalesce(tgid, pid, -1) AS p_tgid FROM events
              WHERE run_id = ${run} AND list_contains(${list(tgids, BIGINT)}, coalesce(tgid, pid, -1))
                AND ${all ? sql`TRUE` : shownByDefault}
              QUALIFY row_number() OVER (PARTITION BY p_tool_call, p_tgid ORDER BY time_ns, seq) <= ${rolledUpEvents})
        GROUP BY ALL`,
  );
  for (const row of rows) {
    const process = byKey.get(processKey(row.tool_call_id, row.tgid));
    if (process !== undefined) process.firstEvents = row.first_events;
  }
  // a process left with no event to list (every one of them a loader or locale open)
  for (const process of processes) process.firstEvents ??= '[]';
}

/** The first events of processes without loader and locale opens, as the rollup keeps them. */
async function readRolledUp(
  connection: StoreConnection,
  run: string,
  processes: readonly ProcessFacts[],
): Promise<void> {
  if (processes.length === 0) return;
  const { byKey: missing, tgids } = keyed(processes);
  // by tgid alone: a list filter costs DuckDB less than a join on both keys; other tool calls' rows are dropped here
  const rows = await readRows<{ tool_call_id: string | null; tgid: number | null; first_events: string }>(
    connection,
    sql`SELECT nullif(p.tool_call_id, '') AS tool_call_id, CAST(nullif(p.tgid, -1) AS UINTEGER) AS tgid,
          p.first_listed AS first_events
        FROM timeline_processes p
        WHERE p.run_id = ${run} AND list_contains(${list(tgids, BIGINT)}, p.tgid)`,
  );
  for (const row of rows) {
    const process = missing.get(processKey(row.tool_call_id, row.tgid));
    if (process !== undefined) process.firstEvents = row.first_events;
  }
}

/** Reads the records of the recorded `calls` that do not have them yet (a run with many). */
export async function readRecords(
  connection: StoreConnection,
  run: string,
  calls: readonly ToolCallFacts[],
): Promise<void> {
  const missing = new Map(
    calls.filter((call) => call.recorded && call.record === null).map((call) => [call.id!, call]),
  );
  if (missing.size === 0) return;
  const rows = await readRows<{ tool_call_id: string; record: string; object_hash: string }>(
    connection,
    sql`SELECT tool_call_id, record, object_hash FROM tool_calls
        WHERE run_id = ${run} AND tool_call_id IN (SELECT unnest(${list([...missing.keys()], VARCHAR)}))`,
  );
  for (const row of rows) missing.get(row.tool_call_id)!.record = toolCallOf(row);
}

/** An execve's argv as stored in attrs (JSON text), when it is a list of strings. */
function argvOf(text: string | null): string[] | null {
  if (text === null) return null;
  const argv = JSON.parse(text) as unknown;
  return Array.isArray(argv) && argv.every((arg) => typeof arg === 'string') ? argv : null;
}
