/**
 * GET /v1/security/risks as its callers see it: its query and what it answers, without its
 * handler (risks.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { PageQuery } from '../model/paging.js';
import type { SecurityRisks } from './security-risks.js';
import type { EndpointContract } from '../shared/http/endpoint.js';

/** The query string of GET /v1/security/risks. */
export interface RisksQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
}

export const risksQuery = new ParamContract<RisksQuery>(
  typia.json.schema<RisksQuery, '3.1'>(),
  typia.createValidate<RisksQuery>(),
);

/** GET /v1/security/risks: where it is and what it answers. */
export const risksContract = {
  method: 'GET',
  path: '/v1/security/risks',
  operationId: 'list_risks',
  schema: 'security_risks',
  answerType: () => typia.json.schemas<[SecurityRisks], '3.1'>(),
} as const satisfies EndpointContract;
