/**
 * explain?risk=: a risk is the policy decision on one event (`risk_<event id>`, as
 * security/risks.ts names it), so its path is the decision's step down to the event it
 * judged, then that event's own path to its run; or the gate's decision on an agent's tool call
 * (`risk_<its object's hash>`), whose step leads to the tool call, then the call's path.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql } from '../../store/sql.js';
import type { ExplainNode, ExplainStep } from './explain-result.js';
import { toolCallSeq } from '../../security/tool-call-decisions.sql.js';

const riskPrefix = 'risk_';

/** The stored decision behind a risk. */
export interface RiskDecision {
  event_id: string;
  /** -1 for the gate's decision on a tool call (security/tool-call-decisions.sql.ts): event_id is its object's hash. */
  seq: bigint | null;
  run_id: string | null;
  decision: string;
  rule_id: string;
  severity: string;
  reason: string;
  policy: string;
}

/** The non-allow decision a risk id names, or undefined when it names none. */
export async function readRiskDecision(
  connection: StoreConnection,
  riskId: string,
): Promise<RiskDecision | undefined> {
  if (!riskId.startsWith(riskPrefix)) return undefined;
  const eventId = riskId.slice(riskPrefix.length);
  const [row] = await readRows<RiskDecision>(
    connection,
    sql`SELECT event_id, seq, run_id, decision, rule_id, severity, reason, policy FROM policy_decisions
          WHERE event_id = ${eventId} AND decision <> 'allow' ORDER BY decided_ns DESC LIMIT 1`,
  );
  return row;
}

/** The tool call the gate's decision `decision` judged (its run and id), if it is one and the call is stored. */
export async function readJudgedToolCall(
  connection: StoreConnection,
  decision: RiskDecision,
): Promise<{ run_id: string; tool_call_id: string } | undefined> {
  if (decision.seq !== toolCallSeq || decision.run_id === null) return undefined;
  const [row] = await readRows<{ run_id: string; tool_call_id: string }>(
    connection,
    sql`SELECT run_id, tool_call_id FROM tool_calls WHERE run_id = ${decision.run_id} AND object_hash = ${decision.event_id}`,
  );
  return row;
}

/**
 * The risk's node (as evidenced as the event or tool call it rests on, never more) and the step
 * from it to that node: the decision, by its rule, recorded by the batch whose judgment root seals it.
 */
export function riskStep(
  riskId: string,
  decision: RiskDecision,
  event: ExplainNode,
): { node: ExplainNode; step: ExplainStep } {
  const node: ExplainNode = {
    kind: 'risk',
    id: riskId,
    run_id: event.run_id,
    label: `${decision.severity} ${decision.decision} by rule ${decision.rule_id}: ${decision.reason}`,
    time: event.time,
    evidence_level: event.evidence_level,
    object_hash: event.object_hash,
  };
  const step: ExplainStep = {
    basis: {
      relation: 'judged',
      method: `policy:${decision.policy}`,
      confidence: null,
      evidence_level: event.evidence_level,
      binding_id: null,
      object_hash: event.object_hash,
    },
    node: event,
  };
  return { node, step };
}
