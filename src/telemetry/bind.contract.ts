/**
 * POST /v1/telemetry/bind as its callers see it: what it answers (its body: bind-request.ts), without
 * its handler (bind.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';
import type { BindingFields } from './binding.js';
import typia from 'typia';
import type { EndpointContract } from '../shared/http/endpoint.js';

/** The answer to POST /v1/telemetry/bind (`provenance.binding/v1`): the binding as stored. */
export interface BindingAnswer extends BindingFields {
  schema_version: 'provenance.binding/v1';
  created_at: DateTimeText;
  /** Spooled events this binding settled. */
  recorrelated: Count;
}

/** POST /v1/telemetry/bind: where it is and what it answers. */
export const bindContract = {
  method: 'POST',
  path: '/v1/telemetry/bind',
  operationId: 'bind',
  schema: 'binding',
  answerType: () => typia.json.schemas<[BindingAnswer], '3.1'>(),
} as const satisfies EndpointContract;
