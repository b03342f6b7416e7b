/**
 * GET /v1/graph/verify on the main thread: check `run`, forward to the store. When the store cannot
 * complete the check, the answer is still a VerifyResult: `unavailable` with `error`, at 503.
 */
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { ProvenanceKinds } from './provenance-kinds.js';
import { runQuery } from './run-query.js';
import { verifyAnswer, verifyDeadlineMs } from './verify-answer.js';
import typia from 'typia';
import type { VerifyResult } from './verify-result.js';

/** Verifies a run: 200 ok/failed, 503 unavailable, 404 for a run nobody named. */
function verifyRoute(store: QueryClient<ProvenanceKinds>): RouteHandler {
  return async ({ query }) => {
    const { run } = runQuery.parse(query);
    return verifyAnswer(run, () => store.query('verify', { run }, { deadlineMs: verifyDeadlineMs }));
  };
}

/** GET /v1/graph/verify. */
export const verifyEndpoint: Endpoint<{ store: QueryClient<ProvenanceKinds> }> = {
  method: 'GET',
  path: '/v1/graph/verify',
  operationId: 'verify_run',
  summary:
    'Verify the evidence chain of a run: every object hash, parent link and chain, every event hash and batch Merkle root',
  schema: 'verify',
  answerType: () => typia.json.schemas<[VerifyResult], '3.1'>(),
  query: runQuery.parameters,
  handler: ({ store }) => verifyRoute(store),
};
