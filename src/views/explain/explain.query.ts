/**
 * explain in the store actor: a node, and its causal path up to its run. An event leads to its
 * process; a process to the process that started it, as far as the run's execs go (exec lineage);
 * the topmost to its tool call through its binding and correlation tier; a tool call to its run.
 * Artifacts and file effects lead to the tool call that produced them; a file to what touched it.
 * Every step carries its basis: method, confidence, evidence level and the object that holds it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../../shared/errors.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { requireRun } from '../../store/run-exists.js';
import { readRows, sql } from '../../store/sql.js';
import { evidenceName, typeCode } from '../../model/codes.js';
import {
  attributionBasis,
  readAttribution,
  eventNode,
  processNode,
  readEvent,
  readProcessEvent,
  readProcessEvents,
  readToolCall,
  runNode,
  sealRows,
  toolCallNode,
  type Attribution,
  type EventRow,
  type ProcessLookup,
  type ProcessRow,
  type Sealed,
  type SeenProcesses,
} from './explain-reads.js';
import type { ExplainBasis, ExplainNode, ExplainResult, ExplainStep } from './explain-result.js';
import type { BatchPlaces } from '../../telemetry/batch-places.js';
import { readRiskDecision, riskStep } from './explain-risk.js';

/** The node kinds explain takes, as its query parameters name them. */
export type ExplainTarget = 'event' | 'process' | 'tool_call' | 'file' | 'risk' | 'artifact' | 'run';

/** The params of the `explain` store query. */
export interface ExplainParams {
  target: ExplainTarget;
  id: string;
  /** The run of a file. */
  run: string | null;
}

/** How far exec lineage is followed up. */
const maxLineage = 32;
/** Touches of a file listed. */
const maxTouches = 20;

/** A path being built: its steps, and whether it reached the run. */
interface Trail {
  path: ExplainStep[];
  complete: boolean;
  incomplete_reason: string | null;
}

const done = (path: ExplainStep[]): Trail => ({ path, complete: true, incomplete_reason: null });
const stopped = (path: ExplainStep[], reason: string): Trail => ({
  path,
  complete: false,
  incomplete_reason: reason,
});

/**
 * Where explain reads: a read connection; a second one for reads that need not wait for the path
 * (the tool call, binding and run, the sealing batches); and the first position the process rollup
 * may not cover yet.
 */
interface Source {
  connection: DuckDBConnection;
  /** Where each batch's events are, as far as the store thread knows. */
  places: BatchPlaces | null;
  side: DuckDBConnection;
  unfoldedFrom: bigint | null;
  /** Which processes the run saw, as far as the reads so far tell. */
  seen: SeenProcesses;
}

/**
 * The serialized ExplainResult; 404 run_not_found when the node names nothing known. Events from
 * `unfoldedFrom` on are not in the process rollup yet (null: every committed event is).
 */
export async function explain(
  connection: DuckDBConnection,
  side: DuckDBConnection,
  params: ExplainParams,
  unfoldedFrom: bigint | null,
  places: BatchPlaces | null = null,
): Promise<string> {
  const {
    node,
    trail,
    touches = [],
    touchCount = 0,
    otherMatches = 0,
  } = await explainTarget({ connection, side, places, unfoldedFrom, seen: new Map() }, params);
  const result: ExplainResult = {
    schema_version: 'provenance.explain/v1',
    node,
    ...trail,
    touches,
    touch_count: touchCount,
    other_matches: otherMatches,
  };
  return JSON.stringify(result);
}

interface Explained {
  node: ExplainNode;
  trail: Trail;
  touches?: ExplainNode[];
  touchCount?: number;
  otherMatches?: number;
}

async function explainTarget(source: Source, params: ExplainParams): Promise<Explained> {
  const { target, id } = params;
  const { connection } = source;
  switch (target) {
    case 'run': {
      await requireRun(connection, id);
      const node = (await runNode(connection, id)) ?? unknown('run', id);
      return { node, trail: done([]) };
    }
    case 'event':
      return fromEvent(source, (await readEvent(connection, id, source.places)) ?? unknown('event', id));
    case 'process':
      return explainProcess(source, id);
    case 'tool_call':
      return explainToolCall(connection, id);
    case 'artifact':
      return explainArtifact(connection, id);
    case 'file':
      return explainFile(source, params.run!, id);
    case 'risk':
      return explainRisk(source, id);
  }
}

/** risk → the event it judged → that event's path. */
async function explainRisk(source: Source, id: string): Promise<Explained> {
  const decision = (await readRiskDecision(source.connection, id)) ?? unknown('risk', id);
  const row = (await readEvent(source.connection, decision.event_id, source.places)) ?? unknown('risk', id);
  const { node: event, trail } = await fromEvent(source, row);
  const { node, step } = riskStep(id, decision, event);
  return { node, trail: { ...trail, path: [step, ...trail.path] } };
}

function unknown(kind: string, id: string): never {
  throw new ProvdError('run_not_found', `no ${kind} "${id}" is known`);
}

/**
 * event → its process → lineage → tool call → run. The tool call, binding and run are read on the
 * side connection while lineage is walked, and then the event's sealing batch; the processes come
 * with theirs from the reads that find them.
 */
async function fromEvent(source: Source, row: EventRow): Promise<Explained> {
  const walk = async (): Promise<Sealed<ProcessRow>[]> => {
    const first = await performers(source, row);
    return [...first, ...(await ancestors(source, first))];
  };
  const aside = async (): Promise<[Attribution | undefined, Sealed<EventRow>]> => {
    const attribution = await attributionOf(source.side, row);
    const [sealed] = await sealRows(source.side, [row]);
    return [attribution, sealed!];
  };
  const [[attribution, event], [performer, ...parents]] = await Promise.all([aside(), walk()]);
  const path: ExplainStep[] =
    performer === undefined
      ? []
      : [
          { basis: basis('performed_by', 'process_identity', 1, performer), node: processNode(performer) },
          ...parents.map(childOf),
        ];
  // lineage shows how the process came to be; the event's binding says which tool call it served
  return { node: eventNode(event), trail: fromAttributed(event, path, attribution) };
}

/**
 * The process that performed `row`, and its parent where one read finds both: the row's own ppid
 * names the parent before the process's exec is read. That parent is kept where the exact read
 * would find the same row (an exec no later than the process's own, of the same ppid).
 */
async function performers(source: Source, row: EventRow): Promise<Sealed<ProcessRow>[]> {
  if (row.tgid === null) return [];
  const guess = row.ppid !== null && row.ppid !== row.tgid;
  const lookups: ProcessLookup[] = [{ tgid: row.tgid, beforeNs: row.time_ns }];
  if (guess) lookups.push({ tgid: row.ppid!, beforeNs: row.time_ns, guess: true });
  const [process, parent] = await readProcessEvents(
    source.connection,
    row.run_id,
    lookups,
    source.unfoldedFrom,
    source.seen,
  );
  if (process === undefined) return [];
  const exact =
    parent?.type === typeCode('execve') && process.ppid === row.ppid && parent.time_ns <= process.time_ns;
  return exact ? [process, parent] : [process];
}

/** The processes that started the last of `lineage` (a process and its parents), as far as the run holds their events. */
async function ancestors(
  source: Source,
  lineage: readonly Sealed<ProcessRow>[],
): Promise<Sealed<ProcessRow>[]> {
  const found: Sealed<ProcessRow>[] = [];
  const seen = new Set(lineage.map((row) => row.tgid));
  let current = lineage[lineage.length - 1];
  for (
    let depth = lineage.length - 1;
    current !== undefined && depth < maxLineage && current.ppid !== null && !seen.has(current.ppid);
    depth++
  ) {
    // every event of the run is in the rollup, which never saw this parent: nothing to read
    if (source.unfoldedFrom === null && source.seen.get(current.ppid) === false) break;
    const parent = await readProcessEvent(
      source.connection,
      current.run_id,
      current.ppid,
      current.time_ns,
      source.unfoldedFrom,
      source.seen,
    );
    if (parent === undefined) break;
    seen.add(parent.tgid);
    found.push(parent);
    current = parent;
  }
  return found;
}

function childOf(parent: Sealed<ProcessRow>): ExplainStep {
  return { basis: basis('child_of', 'exec_lineage', 1, parent), node: processNode(parent) };
}

/** The tool call, binding and run of an attributed row; undefined for a row no binding claimed. */
async function attributionOf(
  connection: DuckDBConnection,
  row: ProcessRow,
): Promise<Attribution | undefined> {
  if (row.run_id === null || row.tool_call_id === null) return undefined;
  return readAttribution(connection, row.run_id, row.tool_call_id, row.binding_id);
}

/** → the tool call the row's binding names → run. */
function fromAttributed(row: ProcessRow, path: ExplainStep[], attribution: Attribution | undefined): Trail {
  if (row.run_id === null || row.tool_call_id === null || attribution === undefined)
    return stopped(path, 'no binding has claimed this event: it is attributed to no tool call or run');
  const { recorded, bindingHash, run } = attribution;
  path.push({
    basis: attributionBasis(row, bindingHash),
    node: toolCallNode(row.run_id, row.tool_call_id, recorded),
  });
  return toRunNode(row.run_id, path, recorded?.object_hash ?? bindingHash, run);
}

/** tool call → run. */
async function toRun(
  connection: DuckDBConnection,
  runId: string,
  path: ExplainStep[],
  heldBy: string | null,
): Promise<Trail> {
  return toRunNode(runId, path, heldBy, await runNode(connection, runId));
}

/** tool call → the run's node (undefined: the run has no record). */
function toRunNode(
  runId: string,
  path: ExplainStep[],
  heldBy: string | null,
  run: ExplainNode | undefined,
): Trail {
  if (run === undefined) return stopped(path, `run "${runId}" has no record`);
  const last = path[path.length - 1];
  const recorded = last?.node.kind === 'tool_call' && last.node.object_hash !== null;
  path.push({
    basis: {
      relation: 'part_of',
      method: recorded ? 'recorded' : 'binding',
      confidence: 1,
      evidence_level: last?.node.evidence_level ?? last?.basis.evidence_level ?? null,
      binding_id: last?.basis.binding_id ?? null,
      object_hash: heldBy,
    },
    node: run,
  });
  return done(path);
}

function basis(
  relation: ExplainBasis['relation'],
  method: string,
  confidence: number,
  row: Sealed<ProcessRow>,
): ExplainBasis {
  return {
    relation,
    method,
    confidence,
    evidence_level: evidenceName(row.evidence_level),
    binding_id: row.binding_id,
    object_hash: row.sealed_by,
  };
}

/** A process by its exec_id, or by tgid (the latest process with it; others counted). */
async function explainProcess(source: Source, id: string): Promise<Explained> {
  const { connection } = source;
  const byTgid = /^\d{1,10}$/.test(id);
  const rows = await readRows<{ run_id: string | null; time_ns: bigint; tgid: number }>(
    connection,
    byTgid
      ? sql`SELECT run_id, max(time_ns) AS time_ns, any_value(tgid) AS tgid FROM events
            WHERE tgid = ${Number(id)} AND type = ${typeCode('execve')} GROUP BY run_id, time_ns ORDER BY time_ns DESC`
      : sql`SELECT run_id, time_ns, tgid FROM events
            WHERE type = ${typeCode('execve')} AND json_extract_string(attrs, '$.exec_id') = ${id}
            ORDER BY time_ns DESC`,
  );
  const latest = rows[0] ?? unknown('process', id);
  const process = (await readProcessEvent(
    connection,
    latest.run_id,
    latest.tgid,
    latest.time_ns,
    source.unfoldedFrom,
    source.seen,
  ))!;
  const parents = await ancestors(source, [process]);
  // lineage shows how the process came to be; its binding says which tool call it served
  const trail = fromAttributed(process, parents.map(childOf), await attributionOf(connection, process));
  return { node: processNode(process), trail, otherMatches: rows.length - 1 };
}

/** A tool call by id: the latest one recorded or bound under that id, in any run. */
async function explainToolCall(connection: DuckDBConnection, id: string): Promise<Explained> {
  const runs = await readRows<{ run_id: string }>(
    connection,
    sql`SELECT run_id, max(seen_ns) AS seen_ns FROM (
          SELECT run_id, started_ns AS seen_ns FROM tool_calls WHERE tool_call_id = ${id}
          UNION ALL SELECT run_id, created_ns AS seen_ns FROM bindings WHERE tool_call_id = ${id})
        GROUP BY run_id ORDER BY seen_ns DESC`,
  );
  const runId = runs[0]?.run_id ?? unknown('tool call', id);
  const recorded = await readToolCall(connection, runId, id);
  const [binding] = await readRows<{ binding_id: string; object_hash: string | null }>(
    connection,
    sql`SELECT binding_id, object_hash FROM bindings WHERE run_id = ${runId} AND tool_call_id = ${id}
        ORDER BY created_ns DESC LIMIT 1`,
  );
  const node = toolCallNode(runId, id, recorded);
  const trail = await toRun(connection, runId, [], recorded?.object_hash ?? binding?.object_hash ?? null);
  // the path of a tool call starts at the run: its basis is the tool call's own record or binding
  trail.path[0]!.basis.binding_id = binding?.binding_id ?? null;
  trail.path[0]!.basis.method = recorded === undefined ? 'binding' : 'recorded';
  trail.path[0]!.basis.evidence_level = node.evidence_level;
  return { node, trail, otherMatches: runs.length - 1 };
}

/** An artifact by its object hash or the address of its bytes: → its tool call → run. */
async function explainArtifact(connection: DuckDBConnection, id: string): Promise<Explained> {
  const rows = await readRows<{ hash: string; run_id: string; body: string; created_ns: bigint }>(
    connection,
    sql`SELECT hash, run_id, body, created_ns FROM objects
        WHERE kind = 'artifact' AND (hash = ${id} OR json_extract_string(body, '$.payload.content_hash') = ${id})
        ORDER BY created_ns DESC`,
  );
  const row = rows[0] ?? unknown('artifact', id);
  const payload = (JSON.parse(row.body) as { payload: Record<string, unknown> }).payload;
  const node: ExplainNode = {
    kind: 'artifact',
    id: row.hash,
    run_id: row.run_id,
    label: `${String(payload['stream'])} of tool call ${String(payload['tool_call_id'])}: ${String(payload['size'])} bytes`,
    time: formatRfc3339Nanos(row.created_ns),
    evidence_level: 'self_observed',
    object_hash: row.hash,
  };
  const trail = await toToolCall(
    connection,
    row.run_id,
    String(payload['tool_call_id']),
    'output_of',
    row.hash,
  );
  return { node, trail, otherMatches: rows.length - 1 };
}

/** artifact or file effect → the tool call that produced it → run. */
async function toToolCall(
  connection: DuckDBConnection,
  runId: string,
  toolCallId: string,
  relation: 'output_of' | 'effect_of',
  objectHash: string,
): Promise<Trail> {
  const recorded = await readToolCall(connection, runId, toolCallId);
  const path: ExplainStep[] = [
    {
      basis: {
        relation,
        method: 'recorded',
        confidence: 1,
        evidence_level: 'self_observed',
        binding_id: null,
        object_hash: objectHash,
      },
      node: toolCallNode(runId, toolCallId, recorded),
    },
  ];
  return toRun(connection, runId, path, recorded?.object_hash ?? null);
}

/**
 * A file of a run: the events whose path is it, and the recorded file effects on it (their path
 * joined to their tool call's cwd); the path goes through the first touch.
 */
async function explainFile(source: Source, runId: string, path: string): Promise<Explained> {
  const { connection } = source;
  await requireRun(connection, runId);
  const events = await readRows<{ id: string; time_ns: bigint }>(
    connection,
    sql`SELECT id, time_ns FROM events WHERE run_id = ${runId} AND json_extract_string(attrs, '$.path') = ${path}
        ORDER BY time_ns, seq`,
  );
  const effects = await readRows<{ hash: string; body: string; created_ns: bigint }>(
    connection,
    sql`SELECT o.hash, o.body, o.created_ns FROM objects o
        JOIN tool_calls t ON t.run_id = o.run_id AND t.tool_call_id = json_extract_string(o.body, '$.payload.tool_call_id')
        WHERE o.run_id = ${runId} AND o.kind = 'file_effect'
          AND (json_extract_string(o.body, '$.payload.path') = ${path}
            OR rtrim(json_extract_string(t.record, '$.cwd'), '/') || '/' || json_extract_string(o.body, '$.payload.path') = ${path})
        ORDER BY o.created_ns`,
  );
  const touchCount = events.length + effects.length;
  if (touchCount === 0) unknown('file', `${path}" in run "${runId}`);
  const rows: EventRow[] = [];
  for (const { id } of events.slice(0, maxTouches))
    rows.push((await readEvent(connection, id, source.places))!);
  const touches = (await sealRows(connection, rows)).map(eventNode);
  for (const effect of effects.slice(0, maxTouches - touches.length)) touches.push(effectNode(runId, effect));
  touches.sort((a, b) => ((a.time ?? '') < (b.time ?? '') ? -1 : 1));
  const first = touches[0]!;
  const node: ExplainNode = {
    kind: 'file',
    id: path,
    run_id: runId,
    label: `file ${path}: ${touchCount} touch${touchCount === 1 ? '' : 'es'}`,
    time: first.time,
    evidence_level: first.evidence_level,
    object_hash: null,
  };
  const touched: ExplainStep = {
    basis: {
      relation: 'touched_by',
      method: 'path',
      confidence: 1,
      evidence_level: first.evidence_level,
      binding_id: null,
      object_hash: first.object_hash,
    },
    node: first,
  };
  const rest =
    first.kind === 'event'
      ? (
          await fromEvent(
            source,
            rows.find((row) => row.id === first.id)!,
          )
        ).trail
      : await toToolCall(connection, runId, toolCallOfEffect(effects, first.id), 'effect_of', first.id);
  return { node, trail: { ...rest, path: [touched, ...rest.path] }, touches, touchCount };
}

/** The tool call a stored file effect names. */
function toolCallOfEffect(effects: readonly { hash: string; body: string }[], hash: string): string {
  const effect = effects.find((candidate) => candidate.hash === hash)!;
  return String((JSON.parse(effect.body) as { payload: Record<string, unknown> }).payload['tool_call_id']);
}

function effectNode(runId: string, effect: { hash: string; body: string; created_ns: bigint }): ExplainNode {
  const payload = (JSON.parse(effect.body) as { payload: Record<string, unknown> }).payload;
  return {
    kind: 'file_effect',
    id: effect.hash,
    run_id: runId,
    label: `${String(payload['effect'])} by tool call ${String(payload['tool_call_id'])}: ${String(payload['path'])}`,
    time: formatRfc3339Nanos(effect.created_ns),
    evidence_level: 'self_observed',
    object_hash: effect.hash,
  };
}
