/**
 * GET /v1/security/risks in the store actor: one keyset page of a run's risks. A risk is a policy
 * decision on one of the run's events (not a plain allow), with the event as its evidence: its
 * level is the event's own, never above it; or the gate's decision on one of its agent's tool calls
 * (tool-call-risks.ts), listed first.
 */
import type { StoreConnection } from '../store/store-connection.js';
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';
import { evidenceName, typeName, type EvidenceLevel } from '../model/codes.js';
import type { CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import type { PageLimit } from '../model/paging.js';
import type { DecisionRow, Judged, JudgedEvent } from './judged-events.sql.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { Decision, Severity } from './policy/policy.js';
import { readRiskOrderedPage } from './risk-ordered-page.js';
import { toolCallRiskOf } from './tool-call-risks.js';
import {
  decisionOutcome,
  responseId,
  type CommandFacts,
  type SecurityResponse,
} from './responses/response.js';

/** Validated parameters of one page request. */
export interface RisksParams {
  run: string;
  limit: number;
  cursor: string | null;
}

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
export type RiskResponse = Pick<SecurityResponse, 'response_id' | 'status' | 'actor' | 'outcome'>;

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

/** The event columns a risk shows: the page reads only these (see pageJudgedEvents). */
const riskColumns = ['seq', 'id', 'type', 'time', 'tool_call_id', 'evidence_level'] as const;

/** What a risk shows of its event. */
export type RiskEvent = Pick<JudgedEvent, (typeof riskColumns)[number]>;

export async function listRisks(
  connection: StoreConnection,
  params: RisksParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<SecurityRisks> {
  const { items, ...page } = await readRiskOrderedPage(
    connection,
    params,
    formatVersion,
    endSeq,
    'risks',
    riskColumns,
    toolCallRiskOf,
    riskOf,
  );
  return { schema_version: 'provenance.security_risks/v1', ...page, risks: items };
}

/** The risk of one judged event; `command` when provd ran its tool call. */
export function riskOf(
  { event, decision: row }: Judged<RiskEvent>,
  command: CommandFacts | null,
): SecurityRisk {
  const level = evidenceName(event.evidence_level);
  const { status, actor, outcome } = decisionOutcome(event.id, row, command);
  return {
    ...decisionOf(row),
    tool_call_id: event.tool_call_id,
    evidence_level: level,
    evidence: [
      {
        event_id: event.id,
        type: typeName(event.type),
        time: event.time,
        evidence_level: level,
        hash: row.event_hash,
      },
    ],
    detected_at: formatRfc3339Nanos(row.decided_ns),
    response: { response_id: responseId(event.id), status, actor, outcome },
  };
}

/** What a risk says of its decision, as stored. */
export function decisionOf(
  row: DecisionRow,
): Pick<SecurityRisk, 'risk_id' | 'rule_id' | 'severity' | 'decision' | 'reason' | 'advisory' | 'policy'> {
  return {
    risk_id: riskId(row.event_id),
    rule_id: row.rule_id,
    severity: row.severity as Severity,
    decision: row.decision as Decision,
    reason: row.reason,
    advisory:
      row.advisory_rule_id === null
        ? null
        : {
            rule_id: row.advisory_rule_id,
            decision: row.advisory_decision as Decision,
            reason: row.advisory_reason ?? '',
          },
    policy: row.policy,
  };
}

/** The id of the risk of a judged event. */
export function riskId(eventId: string): string {
  return `risk_${eventId}`;
}
