/**
 * The response to one risk: what provd did about it, or what the caller should do. Derived when
 * read from the risk's decision, its event and the facts of the command provd ran (if it ran it),
 * so it never disagrees with them.
 */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import { evidenceName } from '../../model/codes.js';
import type { DecisionRow, Judged } from '../judged-events.sql.js';
import type { Decision } from '../policy/policy.js';
import { riskId } from '../risks.js';
import type { ResponseEnforcement, ResponseTarget, SecurityResponse } from './security-responses.js';

/** What became of one decision: a response without its target (what risks and the timeline show). */
export type DecisionOutcome = Pick<SecurityResponse, 'status' | 'actor' | 'reason' | 'outcome'> & {
  /** The kill provd recorded for the decision's tool call, if any. */
  kill: EnforcementRow | null;
};

/** A row of `enforcements`, as the responses read it. */
export interface EnforcementRow {
  event_id: string;
  outcome: ResponseEnforcement['outcome'];
  target_kind: 'cgroup' | 'process_group';
  target_id: string;
  processes_killed: number | null;
  message: string;
  enforced_ns: bigint;
}

/** A tool call provd executed: when it ended (null while it runs) and its kill, if any. */
export interface CommandFacts {
  endedAt: DateTimeText | null;
  endedNs: bigint | null;
  kill: EnforcementRow | null;
}

/** The response to a judged event's risk; `command` when provd ran its tool call. */
export function respond(judged: Judged, command: CommandFacts | null): SecurityResponse {
  const { event, decision } = judged;
  const head = responseHead(event.id, decision);
  const { kill, ...outcome } = decisionOutcome(event.id, decision, command);
  return {
    ...head,
    ...outcome,
    target: kill === null ? targetOf(judged, head.action) : { kind: kill.target_kind, id: kill.target_id },
    tool_call_id: event.tool_call_id,
    evidence_level: evidenceName(event.evidence_level),
    enforcement:
      kill === null
        ? null
        : {
            event_id: kill.event_id,
            outcome: kill.outcome,
            processes_killed: kill.processes_killed,
            message: kill.message,
            enforced_at: formatRfc3339Nanos(kill.enforced_ns),
          },
  };
}

/** The id of the response to the risk of a judged event. */
export function responseId(eventId: string): string {
  return `response_${eventId}`;
}

/** What every response says of the decision on `eventId` (an event's id, or a tool call object's hash). */
export function responseHead(
  eventId: string,
  decision: DecisionRow,
): Pick<SecurityResponse, 'response_id' | 'risk_id' | 'event_id' | 'rule_id' | 'decision' | 'action'> {
  return {
    response_id: responseId(eventId),
    risk_id: riskId(eventId),
    event_id: eventId,
    rule_id: decision.rule_id,
    decision: decision.decision as Decision,
    action: actionOf(decision),
  };
}

/** What a decision calls for; `none` for an allow (a detect-only advisory). */
function actionOf(decision: DecisionRow): SecurityResponse['action'] {
  return decision.decision === 'allow' ? 'none' : (decision.decision as SecurityResponse['action']);
}

/**
 * What became of the decision on event `eventId`: provd's kill of the command it ran (`command`),
 * or why there was none. Risks, responses and the timeline all say it from here.
 */
export function decisionOutcome(
  eventId: string,
  decision: DecisionRow,
  command: CommandFacts | null,
): DecisionOutcome {
  const action = actionOf(decision);
  if (action === 'none')
    return {
      status: 'not_required',
      actor: 'none',
      reason: `detect-only rule ${decision.advisory_rule_id ?? decision.rule_id} flagged the action; the policy allowed it`,
      outcome: 'detect only, nothing to enforce',
      kill: null,
    };
  if (command === null)
    return {
      status: 'recommended',
      actor: 'caller',
      reason: `provd did not run this process: ${action} is the caller's to carry out`,
      outcome: 'not enforced, not a command provd ran',
      kill: null,
    };
  if (action !== 'kill')
    return {
      status: 'recommended',
      actor: 'caller',
      reason: `provd enforces only kill on the commands it runs: ${action} is the caller's to carry out`,
      outcome: 'not enforced, provd enforces only kill',
      kill: null,
    };
  const kill = command.kill;
  if (kill === null) {
    const ended = command.endedNs !== null && decision.decided_ns >= command.endedNs;
    return {
      status: 'not_enforced',
      actor: 'provd',
      reason: ended
        ? `the command had ended (${command.endedAt}) before provd judged this event`
        : 'provd ran the command but did not kill it',
      outcome: ended ? 'not enforced, the command had ended' : 'not enforced, provd did not kill the command',
      kill: null,
    };
  }
  const other = kill.event_id === eventId ? '' : ` (for event ${kill.event_id} of the same tool call)`;
  return {
    status: kill.outcome === 'killed' ? 'enforced' : 'not_enforced',
    actor: 'provd',
    reason:
      other === ''
        ? kill.message
        : `killed for event ${kill.event_id} of the same tool call: ${kill.message}`,
    outcome: killOutcome(kill) + other,
    kill,
  };
}

/** `enforced, 2 processes of cgroup 4711 killed`, `not enforced, the command had ended`, ... */
function killOutcome(kill: EnforcementRow): string {
  if (kill.outcome === 'ended') return 'not enforced, the command had ended';
  if (kill.outcome === 'failed') return 'not enforced, the kill failed';
  const target = `${kill.target_kind === 'cgroup' ? 'cgroup' : 'process group'} ${kill.target_id}`;
  const killed = kill.processes_killed;
  if (killed === null) return `enforced, ${target} killed`;
  return `enforced, ${killed} ${killed === 1 ? 'process' : 'processes'} of ${target} killed`;
}

/** Where the caller should aim the action: the narrowest thing the event names that the action fits. */
function targetOf({ event }: Judged, action: SecurityResponse['action']): ResponseTarget {
  const options: [ResponseTarget['kind'], string | number | null][] =
    action === 'kill'
      ? [
          ['cgroup', event.cgroup_id],
          ['process', event.pid],
          ['container', event.container_id],
          ['tool_call', event.tool_call_id],
        ]
      : action === 'quarantine'
        ? [
            ['container', event.container_id],
            ['cgroup', event.cgroup_id],
            ['tool_call', event.tool_call_id],
            ['process', event.pid],
          ]
        : [
            ['tool_call', event.tool_call_id],
            ['process', event.pid],
          ];
  for (const [kind, id] of options) if (id !== null) return { kind, id: String(id) };
  return { kind: 'run', id: event.run_id };
}
