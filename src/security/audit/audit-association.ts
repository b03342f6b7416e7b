/**
 * One audit association: a policy decision and what it ties together, each part named by the id
 * or hash a user can look up (GET /v1/telemetry/events, /v1/graph/explain, /v1/context/content).
 */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import { evidenceName, typeName, type EvidenceLevel } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';
import type { Judged } from '../judged-events.sql.js';
import type { Decision, Severity } from '../policy/policy.js';
import { riskId } from '../risks.js';
import type { SecurityResponse } from '../responses/security-responses.js';

/** A decision with the event, risk, response, tool call, binding and sealed batch it ties together. */
export interface AuditAssociation {
  /** `association_` and the event's id. */
  association_id: string;
  run_id: string;
  policy_decision: {
    decision: Decision;
    rule_id: string;
    severity: Severity;
    reason: string;
    /** A detect-only rule that matched, when the decision is its advisory. */
    advisory_rule_id: string | null;
    policy: string;
    decided_at: DateTimeText;
  };
  event: {
    event_id: string;
    type: EventType;
    time: DateTimeText;
    evidence_level: EvidenceLevel;
    /** The event's hash when the policy judged it. */
    hash_at_decision: string;
    /** Its stored hash now. */
    hash: string;
    /** The two agree (verify also recomputes `hash` from the stored facts). */
    unchanged: boolean;
  };
  risk_id: string;
  response: ResponseSummary;
  tool_call: { tool_call_id: string; object_hash: string | null } | null;
  binding: { binding_id: string; object_hash: string | null } | null;
  /** The sealed event_batch object whose Merkle root covers the event; null until it is sealed. */
  event_batch: { object_hash: string } | null;
}

/** The response to the decision's risk, in short (GET /v1/security/responses has it whole). */
export interface ResponseSummary {
  response_id: string;
  action: SecurityResponse['action'];
  status: SecurityResponse['status'];
  actor: SecurityResponse['actor'];
}

/** What graphLinks found for a page: object hashes by tool call (`run\0id`) and binding, and batches. */
export interface GraphLinks {
  toolCalls: Map<string, string>;
  bindings: Map<string, string | null>;
  batches: { run_id: string; seq_from: bigint; seq_to: bigint; object_hash: string }[];
}

/** The association of a judged event, with its seq for ordering. */
export function associationOf(
  { event, decision }: Judged,
  response: SecurityResponse,
  links: GraphLinks,
): AuditAssociation & { seq: bigint } {
  const batch = links.batches.find(
    (row) => row.run_id === event.run_id && row.seq_from <= event.seq && event.seq < row.seq_to,
  );
  return {
    seq: event.seq,
    association_id: `association_${event.id}`,
    run_id: event.run_id,
    policy_decision: {
      decision: decision.decision as Decision,
      rule_id: decision.rule_id,
      severity: decision.severity as Severity,
      reason: decision.reason,
      advisory_rule_id: decision.advisory_rule_id,
      policy: decision.policy,
      decided_at: formatRfc3339Nanos(decision.decided_ns),
    },
    event: {
      event_id: event.id,
      type: typeName(event.type),
      time: event.time,
      evidence_level: evidenceName(event.evidence_level),
      hash_at_decision: decision.event_hash,
      hash: event.hash,
      unchanged: decision.event_hash === event.hash,
    },
    risk_id: riskId(event.id),
    response: {
      response_id: response.response_id,
      action: response.action,
      status: response.status,
      actor: response.actor,
    },
    tool_call:
      event.tool_call_id === null
        ? null
        : {
            tool_call_id: event.tool_call_id,
            object_hash: links.toolCalls.get(`${event.run_id}\u0000${event.tool_call_id}`) ?? null,
          },
    binding:
      event.binding_id === null
        ? null
        : { binding_id: event.binding_id, object_hash: links.bindings.get(event.binding_id) ?? null },
    event_batch: batch === undefined ? null : { object_hash: batch.object_hash },
  };
}
