/**
 * GET /v1/signals as its callers see it: its query and what it answers, without its
 * handler (signals.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { Signals } from './signals.js';
import type { EndpointContract } from '../../shared/http/endpoint.js';

/** The query string of GET /v1/signals. */
export interface SignalsQuery {
  /** run identifier */
  run: Identifier;
}

/** How the route reads `run`, and its OpenAPI parameter. */
export const signalsQuery = new ParamContract<SignalsQuery>(
  typia.json.schema<SignalsQuery, '3.1'>(),
  typia.createValidate<SignalsQuery>(),
);

/** GET /v1/signals: where it is and what it answers. */
export const signalsContract = {
  method: 'GET',
  path: '/v1/signals',
  operationId: 'get_signals',
  schema: 'signals',
  answerType: () => typia.json.schemas<[Signals], '3.1'>(),
} as const satisfies EndpointContract;
