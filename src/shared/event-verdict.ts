/**
 * A policy decision on one event, as a normalize worker hands it to the store. Only what the
 * policy did not simply allow is kept: a deny, quarantine or kill, or an allow that a detect-only
 * rule flagged (src/security/ owns the policy; this crosses threads and domains).
 */
export interface EventVerdict {
  eventId: string;
  /** The event's hash when it was judged: verify checks the event is still there and unchanged. */
  eventHash: string;
  decision: string;
  ruleId: string;
  severity: string;
  reason: string;
  /** The detect-only rule that matched, and what it would have decided. */
  advisory: { ruleId: string; decision: string; reason: string } | null;
  /** The policy that decided: `built-in`, or its rules file. */
  policy: string;
}
