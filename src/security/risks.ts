/**
 * GET /v1/security/risks in the store actor: one keyset page of a run's risks. A risk is a policy
 * decision on one of the run's events (not a plain allow), with the event as its evidence: its
 * level is the event's own, never above it; or the gate's decision on one of its agent's tool calls
 * (tool-call-risks.ts), listed first.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { evidenceName, typeName } from '../model/codes.js';
import type { DecisionRow, Judged, JudgedEvent } from './judged-events.sql.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { Decision, Severity } from './policy/policy.js';
import { readRiskOrderedPage } from './risk-ordered-page.js';
import type { SecurityRisk, SecurityRisks } from './security-risks.js';
import { toolCallRiskOf } from './tool-call-risks.js';
import { decisionOutcome, responseId, type CommandFacts } from './responses/response.js';

/** Validated parameters of one page request. */
export interface RisksParams {
  run: string;
  limit: number;
  cursor: string | null;
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
