/**
 * The leaf of a policy decision in its batch's judgment tree: sha256 of the canonical JSON of what
 * the policy decided about which event (its id and its hash then). The batch's event_batch object
 * signs the Merkle root over its events' decision leaves, so a decision deleted, added or rewritten
 * after the fact fails verify, as an event does.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../model/canonical-json.js';

/** A decision as stored (sql/009_policy_decisions.sql), without when it was stored. */
export interface DecisionFacts {
  event_id: string;
  event_hash: string;
  decision: string;
  rule_id: string;
  severity: string;
  reason: string;
  advisory_rule_id: string | null;
  advisory_decision: string | null;
  advisory_reason: string | null;
  policy: string;
}

/** `sha256:<hex>` of the decision's canonical JSON. */
export function decisionLeaf(facts: DecisionFacts): string {
  const { event_id, event_hash, decision, rule_id, severity, reason, policy } = facts;
  const { advisory_rule_id, advisory_decision, advisory_reason } = facts;
  const leaf = {
    event_id,
    event_hash,
    decision,
    rule_id,
    severity,
    reason,
    advisory_rule_id,
    advisory_decision,
    advisory_reason,
    policy,
  };
  return 'sha256:' + hash('sha256', canonicalJson(leaf), 'hex');
}
