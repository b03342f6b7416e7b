/**
 * The reads explain is built from, on a read connection: one event, a process's exec, a sealing
 * batch, a binding, a tool call, a run. Each returns a node (and what the next step needs).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { raw, readRows, sql, type Statement } from '../../store/sql.js';
import { evidenceName, methodName, typeCode } from '../codes.js';
import { eventJson, eventJsonColumns, type EventJsonRow, type TelemetryEvent } from '../event-json.js';
import type { ExplainBasis, ExplainNode } from './explain-result.js';

/** An event row with its keyset position and the event_batch object that seals it (null: none). */
export type EventRow = EventJsonRow & { seq: bigint; sealed_by: string | null };

/** An event row before its sealing batch is looked up. */
type UnsealedRow = Omit<EventRow, 'sealed_by'>;

const eventRowColumns = raw(`${eventJsonColumns}, seq`);

/**
 * The row with the event_batch that seals it. Looked up on its own: as a correlated subquery in the
 * row's read, DuckDB joins it before the row is found, which costs several times the lookup.
 */
async function sealed(
  connection: DuckDBConnection,
  row: UnsealedRow | undefined,
): Promise<EventRow | undefined> {
  if (row === undefined) return undefined;
  if (row.run_id === null) return { ...row, sealed_by: null };
  const [batch] = await readRows<{ object_hash: string | null }>(
    connection,
    sql`SELECT object_hash FROM event_batches
        WHERE run_id = ${row.run_id} AND seq_from <= ${row.seq} AND seq_to > ${row.seq} LIMIT 1`,
  );
  return { ...row, sealed_by: batch?.object_hash ?? null };
}

/** How far back the exec of a process is looked for first: most processes act right after their exec. */
const recentExecNs = 60_000_000_000n;
/** Outside a run, how far back next (then without a bound). */
const olderExecNs = 3_600_000_000_000n;

const execve = typeCode('execve');

/**
 * The event with this id, if stored. An id is `<batch>.<index>`: a batch's digests record the seq
 * range its events got at commit, and settled_ranges the time span of those the spool settled
 * later (settling rewrites seq). Looking there first lets DuckDB's zone maps skip every other row
 * group; the whole table is the fallback.
 */
export async function readEvent(connection: DuckDBConnection, id: string): Promise<EventRow | undefined> {
  const batch = id.slice(0, Math.max(0, id.lastIndexOf('.')));
  const where = await readRows<{ committed: boolean; from: bigint; to: bigint }>(
    connection,
    sql`SELECT true AS committed, seq_from AS "from", seq_to - 1 AS "to" FROM event_batches
          WHERE batch_id = ${batch} AND seq_from IS NOT NULL
        UNION ALL SELECT false, time_from_ns, time_to_ns FROM settled_ranges WHERE batch_id = ${batch}`,
  );
  for (const { committed, from, to } of where) {
    const [row] = await readRows<UnsealedRow>(
      connection,
      committed
        ? sql`SELECT ${eventRowColumns} FROM events WHERE seq BETWEEN ${from} AND ${to} AND id = ${id} LIMIT 1`
        : sql`SELECT ${eventRowColumns} FROM events WHERE time_ns BETWEEN ${from} AND ${to} AND id = ${id} LIMIT 1`,
    );
    if (row !== undefined) return sealed(connection, row);
  }
  const [row] = await readRows<UnsealedRow>(
    connection,
    sql`SELECT ${eventRowColumns} FROM events WHERE id = ${id} LIMIT 1`,
  );
  return sealed(connection, row);
}

/**
 * The exec that started process `tgid` of the run (the latest at or before `beforeNs`), else its
 * latest event. The last minute is searched first, so zone maps on time_ns skip the rest of a long
 * run. Past it, in a run, the process rollup (timeline/process-rollup.ts) says when the run saw the
 * process at all (the events committed past the rollup's mark are looked at apart), so a parent
 * the run never saw costs no scan of the run; outside a run the last hour, then the whole store.
 */
export async function readProcessEvent(
  connection: DuckDBConnection,
  runId: string | null,
  tgid: number,
  beforeNs: bigint,
): Promise<EventRow | undefined> {
  const read = async (where: Statement): Promise<UnsealedRow | undefined> => {
    const [row] = await readRows<UnsealedRow>(
      connection,
      sql`SELECT ${eventRowColumns} FROM events
          WHERE run_id IS NOT DISTINCT FROM ${runId} AND tgid = ${tgid} AND time_ns <= ${beforeNs} AND ${where}
          ORDER BY (type = ${execve}) DESC, time_ns DESC LIMIT 1`,
    );
    return row;
  };
  const recent = await read(sql`time_ns >= ${beforeNs - recentExecNs}`);
  // a recent event of the process, but no recent exec: its exec may lie further back
  if (recent?.type === execve) return sealed(connection, recent);
  if (runId === null) {
    const older = await read(sql`time_ns >= ${beforeNs - olderExecNs}`);
    if (older?.type === execve) return sealed(connection, older);
    return sealed(connection, (await read(sql`true`)) ?? older ?? recent);
  }
  const [span] = await readRows<{ mark: bigint; first_ns: bigint | null; last_ns: bigint | null }>(
    connection,
    sql`SELECT (SELECT through_seq FROM timeline_rollup_mark) AS mark, min(first_ns) AS first_ns,
          max(last_ns) AS last_ns FROM timeline_processes WHERE run_id = ${runId} AND tgid = ${tgid}`,
  );
  const { mark, first_ns: firstNs, last_ns: lastNs } = span!;
  const candidates = [recent, await read(sql`seq >= ${mark}`)];
  if (firstNs !== null && firstNs <= beforeNs)
    candidates.push(await read(sql`time_ns BETWEEN ${firstNs} AND ${lastNs}`));
  return sealed(connection, latestExecFirst(candidates));
}

/** The candidate the reads' own order puts first: an exec before any other event, then the latest. */
function latestExecFirst(candidates: readonly (UnsealedRow | undefined)[]): UnsealedRow | undefined {
  const isExec = (row: UnsealedRow): number => (row.type === execve ? 1 : 0);
  return candidates
    .filter((row): row is UnsealedRow => row !== undefined)
    .sort((a, b) => isExec(b) - isExec(a) || (b.time_ns > a.time_ns ? 1 : b.time_ns < a.time_ns ? -1 : 0))[0];
}

function parseEvent(row: EventRow): TelemetryEvent {
  return JSON.parse(eventJson(row)) as TelemetryEvent;
}

/** A string or number attribute as text; anything else is absent. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** An event as a node. */
export function eventNode(row: EventRow): ExplainNode {
  const event = parseEvent(row);
  const what =
    textOf(event.attrs['path']) ?? textOf(event.attrs['dst_ip']) ?? textOf(event.attrs['query']) ?? '';
  return {
    kind: 'event',
    id: row.id,
    run_id: row.run_id,
    label: `${event.type} by ${row.comm ?? '?'} (pid ${row.tgid ?? row.pid ?? '?'})${what === '' ? '' : `: ${what}`}`,
    time: event.time,
    evidence_level: evidenceName(row.evidence_level),
    object_hash: row.sealed_by,
    event,
  };
}

/** A process as a node, from its exec (or any event of it). */
export function processNode(row: EventRow): ExplainNode {
  const attrs = JSON.parse(row.attrs) as Record<string, unknown>;
  const argv = Array.isArray(attrs['argv']) ? (attrs['argv'] as unknown[]).join(' ') : null;
  const execId = typeof attrs['exec_id'] === 'string' ? attrs['exec_id'] : null;
  const started = row.type === execve ? `: ${argv ?? textOf(attrs['path']) ?? row.comm ?? ''}` : '';
  return {
    kind: 'process',
    id: execId ?? String(row.tgid),
    run_id: row.run_id,
    label: `process ${row.tgid} ${row.comm ?? '?'}${started}`,
    time: formatRfc3339Nanos(row.time_ns),
    evidence_level: evidenceName(row.evidence_level),
    object_hash: row.sealed_by,
  };
}

/** How an event or process row ties to its tool call: its binding (and its object) and correlation tier. */
export function attributionBasis(row: EventRow, bindingHash: string | null): ExplainBasis {
  return {
    relation: 'attributed_to',
    method: methodName(row.corr_method),
    confidence: row.corr_confidence,
    evidence_level: evidenceName(row.evidence_level),
    binding_id: row.binding_id,
    object_hash: bindingHash,
  };
}

/** What an attributed row leads to: its recorded tool call, its binding's object and its run. */
export interface Attribution {
  recorded: ToolCallRow | undefined;
  bindingHash: string | null;
  run: ExplainNode | undefined;
}

/** The tool call, binding and run of an attributed row, in one round trip. */
export async function readAttribution(
  connection: DuckDBConnection,
  runId: string,
  toolCallId: string,
  bindingId: string | null,
): Promise<Attribution> {
  const [row] = await readRows<
    { [K in keyof ToolCallRow]: ToolCallRow[K] | null } & {
      binding_hash: string | null;
      first_seen_ns: bigint | null;
      run_hash: string | null;
    }
  >(
    connection,
    sql`SELECT t.run_id, t.tool_call_id, t.status, t.record, t.object_hash, t.started_ns,
          b.object_hash AS binding_hash, r.first_seen_ns, r.object_hash AS run_hash
        FROM (SELECT 1) one
          LEFT JOIN tool_calls t ON t.run_id = ${runId} AND t.tool_call_id = ${toolCallId}
          LEFT JOIN bindings b ON b.binding_id = ${bindingId}
          LEFT JOIN runs r ON r.run_id = ${runId}`,
  );
  const { binding_hash, first_seen_ns, run_hash, ...toolCall } = row!;
  return {
    recorded: toolCall.run_id === null ? undefined : (toolCall as ToolCallRow),
    bindingHash: binding_hash,
    run: first_seen_ns === null ? undefined : runNodeOf(runId, first_seen_ns, run_hash),
  };
}

/** A tool call as stored by POST /v1/record, if it was recorded. */
export interface ToolCallRow {
  run_id: string;
  tool_call_id: string;
  status: string;
  record: string;
  object_hash: string;
  started_ns: bigint;
}

export async function readToolCall(
  connection: DuckDBConnection,
  runId: string,
  toolCallId: string,
): Promise<ToolCallRow | undefined> {
  const [row] = await readRows<ToolCallRow>(
    connection,
    sql`SELECT run_id, tool_call_id, status, record, object_hash, started_ns FROM tool_calls
        WHERE run_id = ${runId} AND tool_call_id = ${toolCallId}`,
  );
  return row;
}

/** A tool call as a node: recorded (its tool_call object), or known only from a binding. */
export function toolCallNode(
  runId: string,
  toolCallId: string,
  recorded: ToolCallRow | undefined,
): ExplainNode {
  if (recorded === undefined)
    return {
      kind: 'tool_call',
      id: toolCallId,
      run_id: runId,
      label: `tool call ${toolCallId} (bound, not recorded)`,
      time: null,
      evidence_level: null,
      object_hash: null,
    };
  const record = JSON.parse(recorded.record) as {
    command?: string;
    args?: string[];
    evidence_level?: string;
  };
  const command = [record.command ?? '', ...(record.args ?? [])].join(' ').slice(0, 200);
  return {
    kind: 'tool_call',
    id: toolCallId,
    run_id: runId,
    label: `tool call ${toolCallId} (${recorded.status}): ${command}`,
    time: formatRfc3339Nanos(recorded.started_ns),
    evidence_level: record.evidence_level === 'self_observed' ? 'self_observed' : 'context_asserted',
    object_hash: recorded.object_hash,
  };
}

/** The run as a node, if known. */
export async function runNode(connection: DuckDBConnection, runId: string): Promise<ExplainNode | undefined> {
  const [row] = await readRows<{ first_seen_ns: bigint; object_hash: string | null }>(
    connection,
    sql`SELECT first_seen_ns, object_hash FROM runs WHERE run_id = ${runId}`,
  );
  return row === undefined ? undefined : runNodeOf(runId, row.first_seen_ns, row.object_hash);
}

function runNodeOf(runId: string, firstSeenNs: bigint, objectHash: string | null): ExplainNode {
  return {
    kind: 'run',
    id: runId,
    run_id: runId,
    label: `run ${runId}`,
    time: formatRfc3339Nanos(firstSeenNs),
    evidence_level: null,
    object_hash: objectHash,
  };
}
