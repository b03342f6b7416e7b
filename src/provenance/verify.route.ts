/**
 * GET /v1/graph/verify on the main thread: check `run`, forward to the store. When the store cannot
 * complete the check, the answer is still a VerifyResult: `unavailable` with `error`, at 503.
 */
import { isUnavailable, ProvdError } from '../shared/errors.js';
import { jsonReply } from '../shared/http/http-reply.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { ProvenanceKinds } from './provenance-kinds.js';
import { runQuery } from './run-query.js';
import type { VerifyResult } from './verify-result.js';

/** How long verification of one run may take before it is answered `unavailable`. */
const verifyDeadlineMs = 60_000;

/** Verifies a run: 200 ok/failed, 503 unavailable, 404 for a run nobody named. */
function verifyRoute(store: QueryClient<ProvenanceKinds>): RouteHandler {
  return async ({ query }) => {
    const { run } = runQuery.parse(query);
    try {
      const body = await store.query('verify', { run }, { deadlineMs: verifyDeadlineMs });
      return { status: 200, body };
    } catch (error) {
      if (!(error instanceof ProvdError) || !isUnavailable(error.code)) throw error;
      const result: VerifyResult = {
        schema_version: 'provenance.verify/v1',
        run_id: run,
        status: 'unavailable',
        issue_count: 0,
        error_count: 0,
        warning_count: 0,
        error: `${error.code}: ${error.message}`,
        issues: [],
      };
      return { ...jsonReply(503, result), headers: { 'retry-after': '5' } };
    }
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
  query: runQuery.parameters,
  handler: ({ store }) => verifyRoute(store),
};
