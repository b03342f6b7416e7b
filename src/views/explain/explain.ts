/**
 * explain in the store actor: a node, and its causal path up to its run. An event leads to its
 * process; a process to the process that started it, as far as the run's execs go (exec lineage);
 * the topmost to its tool call through its binding and correlation tier; a tool call to its run.
 * Artifacts and file effects lead to the tool call that produced them; a file to what touched it.
 * Every step carries its basis: method, confidence, evidence level and the object that holds it.
 * One file per target kind: explain-event.sql.ts (events and processes), explain-tool-call.sql.ts (tool
 * calls and artifacts), explain-file.sql.ts; explain-trail.ts holds what they share.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { requireRun } from '../../store/run-exists.sql.js';
import type { ExplainResult } from './explain-result.js';
import type { BatchPlaces } from '../../telemetry/batch-places.sql.js';
import { readJudgedToolCall, readRiskDecision, riskStep } from './explain-risk.sql.js';
import { type Explained, type Source, done, unknown } from './explain-trail.js';
import { explainProcess, fromEvent } from './explain-event.sql.js';
import { explainArtifact, explainToolCall } from './explain-tool-call.sql.js';
import { explainFile } from './explain-file.sql.js';
import { readEvent } from './explain-reads.sql.js';
import { runNode } from './tool-call-reads.sql.js';
import { jsonText, type JsonText } from '../../store/json-text.js';

/** The node kinds explain takes, as its query parameters name them. */
export type ExplainTarget = 'event' | 'process' | 'tool_call' | 'file' | 'risk' | 'artifact' | 'run';

/** The params of the `explain` store query. */
export interface ExplainParams {
  target: ExplainTarget;
  id: string;
  /** The run of a file, or of a tool call (else its latest run). */
  run: string | null;
}

/**
 * The serialized ExplainResult; 404 run_not_found for an unknown run, not_found for any other node nothing names. Events from
 * `unfoldedFrom` on are not in the process rollup yet (null: every committed event is).
 */
export async function explain(
  connection: StoreConnection,
  side: StoreConnection,
  params: ExplainParams,
  unfoldedFrom: bigint | null,
  places: BatchPlaces | null = null,
): Promise<JsonText<ExplainResult>> {
  const {
    node,
    trail,
    touches = [],
    touchCount = 0,
    otherMatches = 0,
    toolCall,
  } = await explainTarget({ connection, side, places, unfoldedFrom, seen: new Map() }, params);
  const result: ExplainResult = {
    schema_version: 'provenance.explain/v1',
    node,
    ...trail,
    touches,
    touch_count: touchCount,
    other_matches: otherMatches,
    ...(toolCall !== undefined && { tool_call: toolCall }),
  };
  return jsonText(result);
}

export async function explainTarget(source: Source, params: ExplainParams): Promise<Explained> {
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
      return explainToolCall(connection, id, params.run);
    case 'artifact':
      return explainArtifact(connection, id);
    case 'file':
      return explainFile(source, params.run!, id);
    case 'risk':
      return explainRisk(source, id);
  }
}

/** risk → the event (or the agent's tool call) it judged → its path. */
export async function explainRisk(source: Source, id: string): Promise<Explained> {
  const decision = (await readRiskDecision(source.connection, id)) ?? unknown('risk', id);
  const call = await readJudgedToolCall(source.connection, decision);
  if (call !== undefined) {
    const {
      node: judged,
      trail,
      ...rest
    } = await explainToolCall(source.connection, call.tool_call_id, call.run_id);
    const { node, step } = riskStep(id, decision, judged);
    return { ...rest, node, trail: { ...trail, path: [step, ...trail.path] } };
  }
  const row = (await readEvent(source.connection, decision.event_id, source.places)) ?? unknown('risk', id);
  const { node: event, trail } = await fromEvent(source, row);
  const { node, step } = riskStep(id, decision, event);
  return { node, trail: { ...trail, path: [step, ...trail.path] } };
}
