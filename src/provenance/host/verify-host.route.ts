/**
 * GET /v1/graph/verify-host on the main thread: forwards to the store. Host events belong to no
 * run, so they have their own verify, answered in the VerifyResult shape with run_id `host`; when
 * the store cannot complete it, `unavailable` with `error`, at 503, as verify_run.
 */
import { isUnavailable, ProvdError } from '../../shared/errors.js';
import { jsonReply } from '../../shared/http/http-reply.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import type { ProvenanceKinds } from '../provenance-kinds.js';
import type { VerifyResult } from '../verify-result.js';
import { hostScope } from './verify-host.sql.js';

/** Host verification reads every host event: it may take as long as a run's. */
const verifyDeadlineMs = 60_000;

function verifyHostRoute(store: QueryClient<ProvenanceKinds>): RouteHandler {
  return async () => {
    try {
      const body = await store.query('verifyHost', {}, { deadlineMs: verifyDeadlineMs });
      return { status: 200, body };
    } catch (error) {
      if (!(error instanceof ProvdError) || !isUnavailable(error.code)) throw error;
      const result: VerifyResult = {
        schema_version: 'provenance.verify/v1',
        run_id: hostScope,
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

/** GET /v1/graph/verify-host. */
export const verifyHostEndpoint: Endpoint<{ store: QueryClient<ProvenanceKinds> }> = {
  method: 'GET',
  path: '/v1/graph/verify-host',
  operationId: 'verify_host',
  summary:
    'Verify the host events (bound to no run) against their digests and the signed host chain; removals by host retention are warnings (provd extension)',
  schema: 'verify',
  handler: ({ store }) => verifyHostRoute(store),
};
