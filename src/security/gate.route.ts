/**
 * POST /v1/security/evaluate: the policy preflight (`evaluate_action`). It evaluates a proposed
 * action with the daemon's policy and answers one decision. It runs nothing, blocks nothing, stores
 * nothing and reads no evidence (interface spec, "Policy preflight"): enforcement is the caller's.
 */
import typia, { type tags } from 'typia';
import { errorReply, jsonReply } from '../shared/http/http-reply.js';
import { parseJsonObject } from '../shared/http/json-body.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import { SchemaContract } from '../shared/schema/schema-contract.js';
import type { IntegerIn } from '../shared/schema/wire-types.js';
import type { ArgText } from '../provenance/record/record-request.js';
import type { EventType } from '../model/event.js';
import type { Decision, PolicyDecision } from './policy/policy.js';
import type { PolicyEngine } from './policy/policy-engine.js';
import { addArgv } from './policy/command-subjects.js';
import { decideSubjects, subjectsDecision, type SubjectsDecision } from './policy/most-severe.js';
import { SubjectList } from './policy/named-subject.js';

/** A proposed action: what the caller is about to do. Give the fields its type has. */
export interface GateRequest {
  /** The action's type, one of the event type identifiers (`execve`, `file_open`, `network_connect`, ...). */
  event_type: EventType;
  /** The program to run (a path or a name). */
  command?: (ArgText & tags.MinLength<1>) | null;
  /** Its arguments. */
  args?: (ArgText[] & tags.MaxItems<4096>) | null;
  /** The destination address of a connection. */
  dst_ip?: (string & tags.MinLength<1> & tags.MaxLength<64>) | null;
  /** The destination port of a connection (53: DNS, which the host's own resolvers may receive). */
  dst_port?: IntegerIn<0, 65535> | null;
  /** The file the action reads, writes, renames or removes. */
  path?: (string & tags.MinLength<1> & tags.MaxLength<4096> & tags.Pattern<'^[^\\u0000]*$'>) | null;
  /** The user or group id a setuid or setgid asks for. */
  target_id?: IntegerIn<0, 4294967295> | null;
  /** The directory an `execve` runs in: its relative paths are judged against it. */
  cwd?: (string & tags.MinLength<1> & tags.MaxLength<4096> & tags.Pattern<'^/[^\\u0000]*$'>) | null;
}

/** GateRequest's schema and validator: unknown fields are refused. */
export const gateRequest = new SchemaContract<GateRequest>(
  typia.json.schema<GateRequest, '3.1'>(),
  typia.createValidateEquals<GateRequest>(),
  'evaluate body',
);

/** The answer of POST /v1/security/evaluate (`provenance.gate/v1`). */
export interface GateAnswer {
  schema_version: 'provenance.gate/v1';
  /** Exactly one of the four decisions. */
  decision: Decision;
  /** The rule that decided: `default_allow` when none matched. */
  rule_id: string;
  reason: string;
  severity: PolicyDecision['severity'];
  /** A detect-only rule that matched: the decision it would have made. */
  advisory: { rule_id: string; decision: Decision; reason: string } | null;
  /** Which policy decided: `built-in`, or the rules file given with --policy. */
  policy: string;
  /** Always false: the gate runs and blocks nothing; enforcement is the caller's duty. */
  enforced: false;
  /**
   * What decided, in words: for an `execve`, the program, path or host its command line names
   * (`reads /etc/shadow`); null when no rule matched, and for other actions.
   */
  subject: string | null;
  /**
   * What an `execve`'s command line names that only running it would tell (a variable, a glob, a
   * substitution's output): the decision was made on what it names. Empty when it was read whole.
   */
  unreadable: string[];
}

/**
 * An `execve` is judged by everything its command line names (the program, each path and host,
 * `sh -c` strings read too), the most severe decision winning; any other action as given.
 */
function judgeAction(policy: PolicyEngine, action: GateRequest): SubjectsDecision {
  if (action.event_type !== 'execve' || action.command === undefined || action.command === null) {
    const decided = policy.evaluate(action);
    return subjectsDecision(decided, decided.reason, null, []);
  }
  const list = new SubjectList({ cwd: action.cwd ?? null });
  list.add(action, `runs ${action.command.slice(0, 200)}`, true); // as given, judged whole first
  addArgv(list, [action.command, ...(action.args ?? [])]);
  return decideSubjects(policy, list.reading());
}

function gateRoute(policy: PolicyEngine): RouteHandler {
  return (request) => {
    const checked = gateRequest.check(parseJsonObject(request.body));
    if (!checked.ok) return errorReply('invalid_argument', checked.failure.message);
    const decided = judgeAction(policy, checked.value);
    // field by field, in the order of GateAnswer: a spread of `decided` is a slow object in V8
    const answer: GateAnswer = {
      schema_version: 'provenance.gate/v1',
      decision: decided.decision,
      rule_id: decided.rule_id,
      reason: decided.reason,
      severity: decided.severity,
      advisory: decided.advisory,
      subject: decided.subject,
      unreadable: decided.unreadable,
      policy: policy.policy.source,
      enforced: false,
    };
    return jsonReply(200, answer);
  };
}

/** POST /v1/security/evaluate. */
export const gateEndpoint: Endpoint<{ policy: PolicyEngine }> = {
  method: 'POST',
  path: '/v1/security/evaluate',
  operationId: 'evaluate_action',
  summary: 'Policy preflight: the decision for a proposed action',
  description:
    "Evaluates a proposed action with the policy (built-in, or the rules file given with --policy) and answers one decision: allow, deny, quarantine or kill, with the rule and the reason. An execve is judged by everything its command and args name (each program, path and host; `sh -c` strings read too), the most severe decision winning, and `subject` says which decided. It executes nothing, blocks nothing, stores nothing and reads no runtime evidence: enforcement is the caller's duty, and a decision is no proof of what later ran.",
  schema: 'gate',
  answerType: () => typia.json.schemas<[GateAnswer], '3.1'>(),
  body: 'application/json',
  bodyType: () => typia.json.schemas<[GateRequest], '3.1'>(),
  watched: 'open', // it stores nothing
  handler: ({ policy }) => gateRoute(policy),
};
