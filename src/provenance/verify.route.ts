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
import { verifyContract } from './verify.contract.js';

/** Verifies a run: 200 ok/failed, 503 unavailable, 404 for a run nobody named. */
function verifyRoute(store: QueryClient<ProvenanceKinds>): RouteHandler {
  return async ({ query }) => {
    const { run } = runQuery.parse(query);
    return verifyAnswer(run, () => store.query('verify', { run }, { deadlineMs: verifyDeadlineMs }));
  };
}

/** GET /v1/graph/verify. */
export const verifyEndpoint: Endpoint<{ store: QueryClient<ProvenanceKinds> }> = {
  ...verifyContract,
  summary:
    'Verify the evidence chain of a run: every object hash, parent link and chain, every event hash and batch Merkle root',
  query: runQuery.parameters,
  handler: ({ store }) => verifyRoute(store),
};
