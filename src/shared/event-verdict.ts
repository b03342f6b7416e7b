/**
 * A policy decision on one event, as a normalize worker hands it to the store. Only what the
 * policy did not simply allow is kept: a deny, quarantine or kill, or an allow that a detect-only
 * rule flagged (src/security/ owns the policy; this crosses threads and domains).
 */
export interface EventVerdict {
  eventId: string;
  /** The event's hash when it was judged: verify checks the event is still there and unchanged. */
  eventHash: string;
  /** The event's run when it was judged; null while it waits in the spool for a binding. */
  runId: string | null;
  decision: string;
  ruleId: string;
  severity: string;
  reason: string;
  /** The detect-only rule that matched, and what it would have decided. */
  advisory: { ruleId: string; decision: string; reason: string } | null;
  /** The policy that decided: `built-in`, or its rules file. */
  policy: string;
}

/**
 * A `kill` decision on an event a binding claimed, as the normalize worker hands it to the main
 * thread: provd enforces it when that binding is of a command provd itself runs (POST /v1/record).
 */
export interface KillVerdict {
  eventId: string;
  bindingId: string;
  runId: string;
  toolCallId: string;
  ruleId: string;
  reason: string;
}
