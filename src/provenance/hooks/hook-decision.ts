/**
 * The gate's decision on a tool call as the hook write seals it (hook-store.sql.ts) and explain's
 * account of the call shows it: the wire contract alone, with no store code.
 */

/** The gate's decision on a PreToolUse, as sealed in its tool_call object. */
export interface HookDecision {
  decision: string;
  rule_id: string;
  reason: string;
  severity: string;
  advisory: { rule_id: string; decision: string; reason: string } | null;
  policy: string;
  /** What the agent was answered: allow, deny or ask. */
  answered: string;
}
