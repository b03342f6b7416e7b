/**
 * What the causality tree is built from, read in DuckDB: one row per (tool call, process) with its
 * events by type, and the run's tool calls, whether recorded, bound or only seen in events.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, sql } from '../../store/sql.js';
import { typeName } from '../codes.js';
import { addCounts, addEvents, noEvents } from './event-counts.js';
import type { LineageItem } from './process-lineage.js';
import type { EventCounts } from './timeline-causality.js';
import { bindingInstant } from './timeline-sources.js';

/** One process of one tool call (null: of no tool call), aggregated over its events. */
export interface ProcessFacts extends LineageItem {
  toolCallId: string | null;
  lastNs: bigint;
  comm: string | null;
  binary: string | null;
  argv: string[] | null;
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
  processes: ProcessFacts[];
  counts: EventCounts;
}

/** The key of a process (or of an event's process): tool call and tgid (the pid without one). */
export const processKey = (toolCallId: string | null, tgid: number | null): string =>
  JSON.stringify([toolCallId, tgid]);

/** Every tool call of the run with its processes, by id; the tool calls are read on `side`. */
export async function readToolCalls(
  connection: DuckDBConnection,
  side: DuckDBConnection,
  run: string,
): Promise<Map<string | null, ToolCallFacts>> {
  const toolCalls = readRows<{
    tool_call_id: string;
    first_ns: bigint;
    bindings: bigint;
    recorded: boolean;
  }>(
    connection,
    sql`SELECT tool_call_id, min(at_ns) AS first_ns, count(*) FILTER (WHERE NOT recorded) AS bindings,
          bool_or(recorded) AS recorded
        FROM (SELECT tool_call_id, started_ns AS at_ns, true AS recorded FROM tool_calls WHERE run_id = ${run}
              UNION ALL
              SELECT tool_call_id, ${bindingInstant} AS at_ns, false FROM bindings WHERE run_id = ${run})
        GROUP BY 1 ORDER BY 1`,
  );
  const [rows, processes] = await Promise.all([toolCalls, readProcesses(connection, side, run)]);
  const calls = new Map<string | null, ToolCallFacts>();
  const callOf = (id: string | null, atNs: bigint): ToolCallFacts => {
    const known = calls.get(id);
    if (known !== undefined) {
      if (atNs < known.firstNs) known.firstNs = atNs;
      return known;
    }
    const call: ToolCallFacts = {
      id,
      firstNs: atNs,
      firstEventNs: null,
      lastEventNs: null,
      bindings: 0,
      recorded: false,
      processes: [],
      counts: noEvents(),
    };
    calls.set(id, call);
    return call;
  };
  for (const row of rows) {
    const call = callOf(row.tool_call_id, row.first_ns);
    call.bindings = Number(row.bindings);
    call.recorded = row.recorded;
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
 * One row per process of the run and tool call, with its events by type, from the process rollup
 * (process-rollup.ts). ppid is its first event's that has one; comm its first execve's (else its
 * first event's) that has one; binary and argv its first execve's.
 */
async function readProcesses(
  connection: DuckDBConnection,
  side: DuckDBConnection,
  run: string,
): Promise<ProcessFacts[]> {
  const [facts, byType] = await Promise.all([
    readRows<{
      tool_call_id: string | null;
      tgid: number | null;
      ppid: number | null;
      first_ns: bigint;
      last_ns: bigint;
      comm: string | null;
      binary: string | null;
      argv: string | null;
    }>(
      connection,
      sql`SELECT nullif(tool_call_id, '') AS tool_call_id, CAST(nullif(tgid, -1) AS UINTEGER) AS tgid,
          p.ppid.ppid AS ppid, first_ns, last_ns, coalesce(p.exec_comm.comm, p.comm.comm) AS comm,
          json_extract_string(p.exec.attrs, '$.path') AS binary,
          CAST(json_extract(p.exec.attrs, '$.argv') AS VARCHAR) AS argv
        FROM timeline_processes p WHERE run_id = ${run} ORDER BY 1, 2`,
    ),
    readRows<{
      tool_call_id: string | null;
      tgid: number | null;
      type: number;
      n: bigint;
    }>(
      side,
      sql`SELECT nullif(tool_call_id, '') AS tool_call_id, CAST(nullif(tgid, -1) AS UINTEGER) AS tgid, type,
          events AS n
        FROM timeline_process_types WHERE run_id = ${run} ORDER BY 1, 2, 3`,
    ),
  ]);
  const processes = new Map<string, ProcessFacts>();
  for (const row of facts) {
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
    });
  }
  for (const row of byType) {
    const process = processes.get(processKey(row.tool_call_id, row.tgid))!;
    addEvents(process.counts, typeName(row.type), Number(row.n));
  }
  return [...processes.values()];
}

/** An execve's argv as stored in attrs (JSON text), when it is a list of strings. */
function argvOf(text: string | null): string[] | null {
  if (text === null) return null;
  const argv = JSON.parse(text) as unknown;
  return Array.isArray(argv) && argv.every((arg) => typeof arg === 'string') ? argv : null;
}
