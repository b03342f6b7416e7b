/**
 * The risks and responses of the gate's decisions on an agent's tool calls
 * (tool-call-decisions.sql.ts), as a run's risks and responses pages list them: before those of the
 * decisions on its events, in the order they were decided.
 * Their cursor key is `tc:<decided ns>:<decision's id>`; an event's stays its position.
 */
import { integerPart } from '../model/cursor.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { StoreConnection } from '../store/store-connection.js';
import { decisionOf } from './risks.js';
import { pageJudgedEvents, type DecisionRow, type Judged, type JudgedEvent } from './judged-events.sql.js';
import { responseHead, responseId, type CommandFacts } from './responses/response.js';
import type { SecurityResponse } from './responses/security-responses.js';
import type { SecurityRisk } from './security-risks.js';
import {
  mayHoldToolCallDecisions,
  pageToolCallDecisions,
  type ToolCallDecisionKey,
  type ToolCallDecisionRow,
} from './tool-call-decisions.sql.js';

/** Where a risks page starts: in the tool calls' part (after a decision, or from the first), or after an event's position. */
export type RiskPosition = { toolCalls: ToolCallDecisionKey | null } | { seq: bigint };

const toolCallKey = /^tc:(\d{1,20}):(sha256:[0-9a-f]{64})$/;

/** The position a cursor's key names (null: the first page). */
export function riskPosition(key: string | null): RiskPosition {
  if (key === null) return { toolCalls: null };
  const found = toolCallKey.exec(key);
  if (found !== null) return { toolCalls: { decidedNs: BigInt(found[1]!), eventId: found[2]! } };
  return { seq: integerPart(key) };
}

/** The cursor key after a tool call's decision. */
export function toolCallRiskKey(row: ToolCallDecisionRow): string {
  return `tc:${row.decided_ns}:${row.event_id}`;
}

/**
 * One page of a run's items (risks, responses) from `position`: those of the gate's decisions on its
 * tool calls first, then those of the policy's decisions on its events (read with `columns`), and
 * the key of the next page (null: none). A page full of the tool calls' ends after the last of them
 * when more follow.
 */
export async function pageToolCallsThenEvents<Column extends keyof JudgedEvent, Item>(
  connection: StoreConnection,
  { run, limit }: { run: string; limit: number },
  position: RiskPosition,
  endSeq: bigint,
  columns: readonly (Column | 'seq' | 'id')[],
  ofCall: (row: ToolCallDecisionRow) => Item,
  ofEvent: (
    judged: Judged<Pick<JudgedEvent, Column | 'seq' | 'id'>>,
    commands: Map<string, CommandFacts>,
  ) => Item,
): Promise<{ items: Item[]; next: string | null }> {
  const calls =
    'seq' in position || !(await mayHoldToolCallDecisions(connection, run))
      ? { rows: [], hasMore: false }
      : await pageToolCallDecisions(connection, run, position.toolCalls, limit);
  const callItems = calls.rows.map(ofCall);
  const lastCall = calls.rows.at(-1);
  if (calls.hasMore) return { items: callItems, next: toolCallRiskKey(lastCall!) };
  const after = 'seq' in position ? position.seq : -1n;
  const events = await pageJudgedEvents(connection, run, after, limit - callItems.length, endSeq, columns);
  const items = [...callItems, ...events.judged.map((judged) => ofEvent(judged, events.commands))];
  if (!events.hasMore) return { items, next: null };
  return { items, next: events.lastSeq !== null ? String(events.lastSeq) : toolCallRiskKey(lastCall!) };
}

/**
 * What became of the gate's decision on a tool call: a denied call was stopped before it ran. The
 * agent is answered deny for every decision but allow (agents/hook-judge.ts verdictOf; a spooled
 * call's decision is what the hook client answered), so the decision, checked by verify against
 * the call's sealed object, says so by itself.
 */
export function toolCallOutcome(
  row: DecisionRow,
): Pick<SecurityResponse, 'status' | 'actor' | 'reason' | 'outcome'> {
  if (row.decision === 'allow')
    return {
      status: 'not_required',
      actor: 'none',
      reason: `detect-only rule ${row.advisory_rule_id ?? row.rule_id} flagged the tool call; the policy allowed it`,
      outcome: 'detect only, nothing to enforce',
    };
  return {
    status: 'enforced',
    actor: 'provd',
    reason: `the gate answered the agent's PreToolUse with a denial: the call was refused before it ran`,
    outcome: 'enforced, the gate denied the call before it ran',
  };
}

/** The response to the gate's decision on a tool call: its target is the call. */
export function toolCallResponseOf(row: ToolCallDecisionRow): SecurityResponse {
  return {
    ...responseHead(row.event_id, row),
    ...toolCallOutcome(row),
    target: { kind: 'tool_call', id: row.tool_call_id ?? row.event_id },
    tool_call_id: row.tool_call_id,
    evidence_level: 'context_asserted',
    enforcement: null,
  };
}

/**
 * The risk of the gate's decision on a tool call. Its evidence is the agent's own account (the
 * call's tool_call object, `context_asserted`): no event, as a denied call never ran.
 */
export function toolCallRiskOf(row: ToolCallDecisionRow): SecurityRisk {
  const { status, actor, outcome } = toolCallOutcome(row);
  return {
    ...decisionOf(row),
    tool_call_id: row.tool_call_id,
    evidence_level: 'context_asserted',
    evidence: [],
    tool_call: { tool_call_id: row.tool_call_id, tool_name: row.tool_name, object_hash: row.event_id },
    detected_at: formatRfc3339Nanos(row.decided_ns),
    response: { response_id: responseId(row.event_id), status, actor, outcome },
  };
}
