/**
 * The gate's answer to a PreToolUse, on the main thread's policy engine (no store round trip):
 * the tool call judged as the policy's `judgeToolCall` reads it (a shell command by the programs,
 * paths and hosts it names; a file tool by its path), the most severe decision kept. `deny`,
 * `quarantine` and `kill` deny; `allow` allows; a detect-only rule allows and keeps its advisory.
 */
import type { Decision } from '../security/policy/policy.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import { judgeToolCall } from '../security/policy/judge-tool-call.js';
import type { HookDecision } from '../provenance/hooks/hook-decision.js';
import type { HookEvent, HookVerdict } from './hook-event.js';

/** What the agent is answered for a policy decision. */
export function verdictOf(decision: Decision): HookVerdict {
  return decision === 'allow' ? 'allow' : 'deny';
}

/**
 * Judges a PreToolUse. `~` is left as written (the hook does not say whose home it is), which the
 * policy's path patterns still match (`~/.ssh/id_rsa` names a key).
 */
export function judgePreToolUse(policy: PolicyEngine, event: HookEvent): HookDecision {
  const decided = judgeToolCall(policy, event.tool_name ?? '', event.tool_input ?? {}, event.cwd, null);
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
