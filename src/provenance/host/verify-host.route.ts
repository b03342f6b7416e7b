/**
 * GET /v1/graph/verify-host on the main thread: forwards to the store. Host events belong to no
 * run, so they have their own verify, answered in the VerifyResult shape with run_id `host`; when
 * the store cannot complete it, `unavailable` with `error`, at 503, as verify_run.
 */
import typia from 'typia';
import type { Endpoint } from '../../shared/http/endpoint.js';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import type { ProvenanceKinds } from '../provenance-kinds.js';
import { verifyAnswer, verifyDeadlineMs } from '../verify-answer.js';
import { hostScope } from './host-scope.js';
import type { VerifyResult } from '../verify-result.js';

/** `?full=true`: verify every host event again, not only what was added since the last call. */
export interface VerifyHostQuery {
  /** true: check every host event and chain entry again (a call checks only what changed since the last one) */
  full?: 'true' | 'false';
}

const verifyHostQuery = new ParamContract<VerifyHostQuery>(
  typia.json.schema<VerifyHostQuery, '3.1'>(),
  typia.createValidate<VerifyHostQuery>(),
);

function verifyHostRoute(store: QueryClient<ProvenanceKinds>): RouteHandler {
  return ({ query }) => {
    const { full } = verifyHostQuery.parse(query);
    // a full verification reads every host event: it may take as long as a run's
    return verifyAnswer(hostScope, () =>
      store.query('verifyHost', { full: full === 'true' }, { deadlineMs: verifyDeadlineMs }),
    );
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
  answerType: () => typia.json.schemas<[VerifyResult], '3.1'>(),
  query: verifyHostQuery.parameters,
  handler: ({ store }) => verifyHostRoute(store),
};
