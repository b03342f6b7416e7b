/**
 * GET /v1/graph/verify as its callers see it: what it answers (its query: run-query.ts), without its
 * handler (verify.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import type { VerifyResult } from './verify-result.js';
import type { EndpointContract } from '../shared/http/endpoint.js';

/** GET /v1/graph/verify: where it is and what it answers. */
export const verifyContract = {
  method: 'GET',
  path: '/v1/graph/verify',
  operationId: 'verify_run',
  schema: 'verify',
  answerType: () => typia.json.schemas<[VerifyResult], '3.1'>(),
} as const satisfies EndpointContract;
