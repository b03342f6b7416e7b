/**
 * The answer of GET /v1/security/risks (`provenance.security_risks/v1`), as the CLI reads it and
 * the store writes it (risks.ts): the wire contract alone, with no store code.
 */
import type { EvidenceLevel } from '../model/codes.js';
import type { CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import type { PageLimit } from '../model/paging.js';
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';
import type { Decision, Severity } from './policy/policy.js';
import type { SecurityResponse } from './responses/security-responses.js';

/** One risk: what the policy decided on an event of the run, and the event it decided on. */
export interface SecurityRisk {
  /** `risk_` and the event's id: one risk per judged event. */
  risk_id: string;
  rule_id: string;
  severity: Severity;
  /** What the policy decided; `allow` only with an advisory (a detect-only rule matched). */
  decision: Decision;
  reason: string;
  advisory: { rule_id: string; decision: Decision; reason: string } | null;
  /** The policy that decided: `built-in`, or its rules file. */
  policy: string;
  tool_call_id: string | null;
  /**
   * For the gate's decision on an agent's tool call (its PreToolUse), the call it judged: the
   * risk then has no event as evidence, its tool_call object (`object_hash`, sealed in the run) is
   * the agent's own account. Absent on a decision on an event.
   */
  tool_call?: { tool_call_id: string | null; tool_name: string | null; object_hash: string };
  /** The weakest evidence level of the risk's evidence: its one event's, or `context_asserted` for a tool call's. */
  evidence_level: EvidenceLevel;
  evidence: {
    event_id: string;
    type: EventType;
    time: DateTimeText;
    evidence_level: EvidenceLevel;
    /** The event's hash when it was judged. */
    hash: string;
  }[];
  detected_at: DateTimeText;
  /**
   * What became of the decision (its response: GET /v1/security/responses): whether provd enforced
   * it, and `outcome`, the few words to show beside the decision.
   */
  response: RiskResponse;
}

/** A risk's response, as a risk shows it beside its decision. */
// its keys in the order the answer lists them: a Pick's properties follow the order in which the
// compiler first met its keys, so written as listed, a move of this file keeps openapi.json the same
export type RiskResponse = Pick<SecurityResponse, 'status' | 'outcome' | 'actor' | 'response_id'>;

/** One page of a run's risks (`provenance.security_risks/v1`): its tool calls' in the order decided, then its events' in event order. */
export interface SecurityRisks {
  schema_version: 'provenance.security_risks/v1';
  run_id: string;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  risks: SecurityRisk[];
}
