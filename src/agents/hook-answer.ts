/** The answer of POST /v1/hooks/{agent}, as the OpenAPI document describes every agent's shape. */

/** What an agent's hook prints or its HTTP hook receives: `{}` lets the call go on. */
export interface HookAnswer {
  /** Claude and Codex: the PreToolUse decision, when the gate denies (or asks, Claude only). */
  hookSpecificOutput?: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'deny' | 'ask';
    permissionDecisionReason: string;
  };
  /** Gemini: `deny` when the gate denies. */
  decision?: 'deny';
  /** Gemini: why. */
  reason?: string;
}
