/**
 * The answer of GET /v1/security/responses (`provenance.security_responses/v1`) and the response
 * each risk shows, as the CLI reads them and the store writes them (responses.ts, response.ts): the
 * wire contract alone, with no store code.
 */
import type { EvidenceLevel } from '../../model/codes.js';
import type { CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { Decision } from '../policy/policy.js';

/** One page of a run's responses (`provenance.security_responses/v1`). */
export interface SecurityResponses {
  schema_version: 'provenance.security_responses/v1';
  run_id: string;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  responses: SecurityResponse[];
}

/** What a response's action is aimed at. */
export interface ResponseTarget {
  kind: 'cgroup' | 'process_group' | 'process' | 'container' | 'tool_call' | 'run';
  id: string;
}

/** A kill provd carried out on a command it ran. */
export interface ResponseEnforcement {
  /** The event whose kill decision triggered it: this risk's, or an earlier one of the same tool call. */
  event_id: string;
  outcome: 'killed' | 'ended' | 'failed';
  processes_killed: Count | null;
  message: string;
  enforced_at: DateTimeText;
}

/** One risk's response. */
export interface SecurityResponse {
  /** `response_` and the event's id: one response per risk. */
  response_id: string;
  risk_id: string;
  event_id: string;
  rule_id: string;
  decision: Decision;
  /** What the decision calls for; `none` for a detect-only advisory. */
  action: 'kill' | 'quarantine' | 'deny' | 'none';
  /**
   * `enforced`: provd killed the command; `not_enforced`: provd ran the command but did not kill
   * it (`reason` says why); `recommended`: the caller must carry the action out; `not_required`:
   * a detect-only rule only flagged it.
   */
  status: 'enforced' | 'not_enforced' | 'recommended' | 'not_required';
  /** Who carries the action out. */
  actor: 'provd' | 'caller' | 'none';
  target: ResponseTarget;
  tool_call_id: string | null;
  /** The risk's evidence level. */
  evidence_level: EvidenceLevel;
  reason: string;
  /**
   * What became of the decision, in a few words to show beside it: `enforced, 2 processes of
   * cgroup 4711 killed`, `not enforced, the command had ended`, `not enforced, not a command provd ran`.
   */
  outcome: string;
  enforcement: ResponseEnforcement | null;
}
