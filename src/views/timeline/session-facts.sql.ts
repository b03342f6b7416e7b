/**
 * What the session view reads (store thread): the run's hook objects and tool-call rows, the texts
 * they name, and the events carrying their tool calls' ids: counted per process (with the loader
 * and locale opens among them) and listed up to a bound per tool call, in a few set-wise statements.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import { typeCode } from '../../model/codes.js';
import { list, raw, readRows, sql } from '../../store/sql.js';
import { hiddenLoaderOpen } from '../../telemetry/loader-opens.sql.js';

/** A hook object of the run: a hook_event, a hook's tool_call, or a hook_content. */
export interface HookObjectRow {
  hash: string;
  kind: 'hook_event' | 'tool_call' | 'hook_content';
  body: string;
  created_ns: bigint;
}

/** A tool_calls row: its status and its record's end. */
export interface ToolCallStateRow {
  tool_call_id: string;
  status: string;
  ended_at: string | null;
  duration_ms: number | null;
}

/** The events of one process of one tool call (or of no tool call: `tool_call_id` null), counted. */
export interface ProcessCountRow {
  tool_call_id: string | null;
  tgid: number | null;
  events: bigint;
  folded: bigint;
  first_ns: bigint;
  ppid: number | null;
  comm: string | null;
  evidence_level: number;
  corr_method: number;
  corr_confidence: number | null;
  /** The argv of its first execve, JSON text; null without one. */
  argv: string | null;
}

/** A listed event. */
export interface ListedEventRow {
  id: string;
  tool_call_id: string;
  tgid: number | null;
  comm: string | null;
  type: number;
  time_ns: bigint;
  evidence_level: number;
  attrs: string;
  judged: boolean;
  folded: boolean;
}

/** The run's hook objects, or none for a run no hook wrote. */
export function readHookObjects(connection: StoreConnection, run: string): Promise<HookObjectRow[]> {
  return readRows<HookObjectRow>(
    connection,
    sql`SELECT hash, kind, body, created_ns FROM objects WHERE run_id = ${run}
        AND (kind IN ('hook_event', 'hook_content')
          OR (kind = 'tool_call' AND json_extract_string(body, '$.payload.source') = 'hook'))`,
  );
}

/** The state of the run's tool calls (status, end, duration), by the tool_calls read model. */
export function readToolCallStates(connection: StoreConnection, run: string): Promise<ToolCallStateRow[]> {
  return readRows<ToolCallStateRow>(
    connection,
    sql`SELECT tool_call_id, status, json_extract_string(record, '$.ended_at') AS ended_at,
          TRY_CAST(json_extract(record, '$.duration_ms') AS DOUBLE) AS duration_ms
        FROM tool_calls WHERE run_id = ${run}`,
  );
}

/** The first `chars` + 1 characters of each stored text, by content hash (one more tells a cut). */
export async function readTexts(
  connection: StoreConnection,
  hashes: readonly string[],
  chars: number,
): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await readRows<{ hash: string; text: string }>(
    connection,
    sql`SELECT hash, left(decode(content), ${raw(String(chars + 1))}) AS text FROM artifacts
        WHERE list_contains(${list([...hashes], VARCHAR)}, hash)`,
  );
  return new Map(rows.map((row) => [row.hash, row.text]));
}

/** Every process of the run's events, per tool call (null: none), with its counts and first facts. */
export function readProcessCounts(connection: StoreConnection, run: string): Promise<ProcessCountRow[]> {
  const execve = raw(String(typeCode('execve')));
  return readRows<ProcessCountRow>(
    connection,
    sql`SELECT tool_call_id, coalesce(tgid, pid) AS tgid, count(*) AS events,
          count(*) FILTER (WHERE folded) AS folded, min(time_ns) AS first_ns,
          arg_min(ppid, time_ns) AS ppid, arg_min(comm, time_ns) AS comm,
          arg_min(evidence_level, time_ns) AS evidence_level, arg_min(corr_method, time_ns) AS corr_method,
          arg_min(corr_confidence, time_ns) AS corr_confidence,
          arg_min(CAST(json_extract(attrs, '$.argv') AS VARCHAR), time_ns) FILTER (WHERE type = ${execve}) AS argv
        FROM (SELECT *, ${hiddenLoaderOpen} AS folded FROM events WHERE run_id = ${run})
        GROUP BY ALL ORDER BY first_ns, tgid`,
  );
}

/**
 * The first `perToolCall` events of each of `toolCalls`, by capture time; loader and locale opens
 * among them only when `all`.
 */
export async function readListedEvents(
  connection: StoreConnection,
  run: string,
  toolCalls: readonly string[],
  perToolCall: number,
  all: boolean,
): Promise<ListedEventRow[]> {
  if (toolCalls.length === 0) return [];
  return readRows<ListedEventRow>(
    connection,
    sql`SELECT id, tool_call_id, tgid, comm, type, time_ns, evidence_level, attrs, judged, folded FROM (
          SELECT *, row_number() OVER (PARTITION BY tool_call_id ORDER BY time_ns, seq) AS n FROM (
            SELECT id, seq, tool_call_id, coalesce(tgid, pid) AS tgid, comm, type, time_ns, evidence_level,
              attrs, judged, ${hiddenLoaderOpen} AS folded
            FROM events WHERE run_id = ${run} AND list_contains(${list([...toolCalls], VARCHAR)}, tool_call_id))
          WHERE ${all} OR NOT folded)
        WHERE n <= ${raw(String(perToolCall))} ORDER BY time_ns, n`,
  );
}

/** The policy's decisions on the listed judged events, by event id. */
export async function readEventDecisions(
  connection: StoreConnection,
  eventIds: readonly string[],
): Promise<Map<string, { decision: string; rule_id: string }>> {
  if (eventIds.length === 0) return new Map();
  const rows = await readRows<{ event_id: string; decision: string; rule_id: string }>(
    connection,
    sql`SELECT event_id, decision, rule_id FROM policy_decisions
        WHERE list_contains(${list([...eventIds], VARCHAR)}, event_id)`,
  );
  return new Map(rows.map(({ event_id, decision, rule_id }) => [event_id, { decision, rule_id }]));
}
