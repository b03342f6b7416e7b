/**
 * POST /v1/security/evaluate: the policy preflight (`evaluate_action`). It evaluates a proposed
 * action with the daemon's policy and answers one decision. It runs nothing, blocks nothing, stores
 * nothing and reads no evidence (interface spec, "Policy preflight"): enforcement is the caller's.
 */
import typia from 'typia';
import { errorReply, jsonReply } from '../shared/http/http-reply.js';
import { parseJsonObject } from '../shared/http/json-body.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { PolicyEngine } from './policy/policy-engine.js';
import { addArgv } from './policy/command-subjects.js';
import { decideSubjects, subjectsDecision, type SubjectsDecision } from './policy/most-severe.js';
import { SubjectList } from './policy/named-subject.js';
import { type GateRequest, gateRequest, type GateAnswer, gateContract } from './gate.contract.js';

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
  ...gateContract,
  summary: 'Policy preflight: the decision for a proposed action',
  description:
    "Evaluates a proposed action with the policy (built-in, or the rules file given with --policy) and answers one decision: allow, deny, quarantine or kill, with the rule and the reason. An execve is judged by everything its command and args name (each program, path and host; `sh -c` strings read too), the most severe decision winning, and `subject` says which decided. It executes nothing, blocks nothing, stores nothing and reads no runtime evidence: enforcement is the caller's duty, and a decision is no proof of what later ran.",
  body: 'application/json',
  bodyType: () => typia.json.schemas<[GateRequest], '3.1'>(),
  watched: 'open', // it stores nothing
  handler: ({ policy }) => gateRoute(policy),
};
