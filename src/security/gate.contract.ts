/**
 * POST /v1/security/evaluate as its callers see it: its body and what it answers, without its
 * handler (gate.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia, { type tags } from 'typia';
import { SchemaContract } from '../shared/schema/schema-contract.js';
import type { IntegerIn } from '../shared/schema/wire-types.js';
import type { ArgText } from '../provenance/record/record-request.js';
import type { EventType } from '../model/event.js';
import type { Decision, PolicyDecision } from './policy/policy.js';
import type { EndpointContract } from '../shared/http/endpoint.js';

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

/** POST /v1/security/evaluate: where it is and what it answers. */
export const gateContract = {
  method: 'POST',
  path: '/v1/security/evaluate',
  operationId: 'evaluate_action',
  schema: 'gate',
  answerType: () => typia.json.schemas<[GateAnswer], '3.1'>(),
} as const satisfies EndpointContract;
