/**
 * The gate's answer to a PreToolUse, on the main thread's policy engine (no store round trip):
 * every subject of the call judged, the most severe decision kept. `deny`, `quarantine` and
 * `kill` deny; `allow` allows; a detect-only rule allows and keeps its advisory. The one place
 * that will switch to the policy's own `toolCallSubjects` and most-severe decision once merged.
 */
import type { Decision, PolicyDecision } from '../security/policy/policy.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import type { HookDecision } from '../provenance/hooks/hook-store.sql.js';
import type { HookEvent, HookVerdict } from './hook-event.js';
import { toolSubjects } from './tool-subjects.js';

const severity: Readonly<Record<Decision, number>> = { allow: 0, deny: 1, quarantine: 2, kill: 3 };

/** What the agent is answered for a policy decision. */
export function verdictOf(decision: Decision): HookVerdict {
  return decision === 'allow' ? 'allow' : 'deny';
}

/** Judges a PreToolUse: the most severe decision over its subjects (an advisory kept when nothing denies). */
export function judgeToolCall(policy: PolicyEngine, event: HookEvent): HookDecision {
  let chosen: PolicyDecision | null = null;
  for (const subject of toolSubjects(event)) {
    const decided = policy.evaluate(subject);
    if (
      chosen === null ||
      severity[decided.decision] > severity[chosen.decision] ||
      (decided.decision === chosen.decision && chosen.advisory === null && decided.advisory !== null)
    )
      chosen = decided;
  }
  const decided = chosen ?? policy.evaluate({ event_type: 'execve', command: null });
  return {
    decision: decided.decision,
    rule_id: decided.rule_id,
    reason: decided.reason,
    severity: decided.severity,
    advisory: decided.advisory,
    policy: policy.policy.source,
    answered: verdictOf(decided.decision),
  };
}
