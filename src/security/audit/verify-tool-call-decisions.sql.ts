/**
 * verify's check of the gate's decisions on a run's tool calls (tool-call-decisions.sql.ts): each
 * stored one is exactly the decision its tool_call object records, and each tool_call object whose
 * decision is not a plain allow has its stored one. The object is sealed in the run's context chain
 * (its address, chain and checkpoint are verified with the run's objects), so a decision added,
 * removed or rewritten after the fact fails verify, as one on an event does.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { decisionLeaf, type DecisionFacts } from '../../provenance/decision-leaf.js';
import type { HookDecision } from '../../provenance/hooks/hook-decision.js';
import type { VerifyIssues } from '../../provenance/verify-issues.js';
import { readRows, sql } from '../../store/sql.js';
import { isKeptDecision, toolCallSeq } from '../tool-call-decisions.sql.js';

/** Issues named per kind; the rest are counted (as VerifyIssues lists them). */
const listed = 100;

type StoredRow = Omit<DecisionFacts, 'event_id'> & { event_id: string | null };

export async function verifyToolCallDecisions(
  connection: StoreConnection,
  runId: string,
  _batches: unknown,
  issues: VerifyIssues,
): Promise<void> {
  // every hook tool_call object of the run beside every decision on a tool call of the run
  const rows = await readRows<StoredRow & { hash: string | null; recorded: string | null }>(
    connection,
    sql`SELECT o.hash, json_extract(o.body, '$.payload.decision')::VARCHAR AS recorded, d.event_id, d.event_hash,
          d.decision, d.rule_id, d.severity, d.reason, d.advisory_rule_id, d.advisory_decision, d.advisory_reason, d.policy
        FROM (SELECT hash, body FROM objects WHERE run_id = ${runId} AND kind = 'tool_call'
                AND json_extract_string(body, '$.payload.source') = 'hook') o
          FULL JOIN (SELECT * FROM policy_decisions WHERE run_id = ${runId} AND seq = ${toolCallSeq}) d
          ON d.event_id = o.hash
        ORDER BY coalesce(o.hash, d.event_id)`,
  );
  const mismatched: { id: string; message: string }[] = [];
  const missing: { id: string; message: string }[] = [];
  for (const row of rows) {
    const recorded = row.recorded === null ? null : (JSON.parse(row.recorded) as HookDecision | null);
    const kept = recorded !== null && isKeptDecision(recorded);
    if (row.event_id === null) {
      if (kept)
        missing.push({
          id: row.hash!,
          message: `the tool call of object ${row.hash} was decided ${recorded.decision} by rule ${recorded.rule_id}, and its stored decision is gone`,
        });
      continue;
    }
    // no object (hash null) records no decision: not kept
    const stored = decisionLeaf({ ...row, event_id: row.event_id });
    if (!kept || decisionLeaf(factsOf(row.event_id, recorded)) !== stored)
      mismatched.push({
        id: row.event_id,
        message: `the decision stored for the tool call of object ${row.event_id} is not the one its sealed object records`,
      });
  }
  issues.errorMany('tool_call_decision_mismatch', mismatched.length, mismatched.slice(0, listed));
  issues.errorMany('tool_call_decision_missing', missing.length, missing.slice(0, listed));
}

/** The facts a decision on the tool call of object `hash` is stored with. */
function factsOf(hash: string, decision: HookDecision): DecisionFacts {
  return {
    event_id: hash,
    event_hash: hash,
    decision: decision.decision,
    rule_id: decision.rule_id,
    severity: decision.severity,
    reason: decision.reason,
    advisory_rule_id: decision.advisory?.rule_id ?? null,
    advisory_decision: decision.advisory?.decision ?? null,
    advisory_reason: decision.advisory?.reason ?? null,
    policy: decision.policy,
  };
}
