/**
 * POST /v1/security/baselines (learn a version), GET /v1/security/baselines (the list) and
 * GET /v1/security/baseline (one version, whole) on the main thread: check the request, forward the
 * store's bytes.
 */
import typia from 'typia';
import { errorReply } from '../../shared/http/http-reply.js';
import { parseJsonObject } from '../../shared/http/json-body.js';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityKinds } from '../security-kinds.js';
import type { BaselineVersionParam } from './baseline.js';
import { baselineRequest } from './baseline-request.js';
import type { Baseline, BaselineList } from './baseline.js';
import type { BaselineRequest } from './baseline-request.js';

/** Learning folds the events not folded yet and reads one row per distinct value of up to 1,000 runs. */
const learnDeadlineMs = 120_000;

/** The query string of GET /v1/security/baselines. */
export interface BaselinesQuery extends PageQuery {
  /** only the versions of this baseline name */
  name?: Identifier;
}

/** The query string of GET /v1/security/baseline. */
export interface BaselineQuery {
  /** the baseline's name */
  name: Identifier;
  /** its version; default: the latest */
  version?: BaselineVersionParam;
}

export const baselinesQuery = new ParamContract<BaselinesQuery>(
  typia.json.schema<BaselinesQuery, '3.1'>(),
  typia.createValidate<BaselinesQuery>(),
);

export const baselineQuery = new ParamContract<BaselineQuery>(
  typia.json.schema<BaselineQuery, '3.1'>(),
  typia.createValidate<BaselineQuery>(),
);

/** Learns a new version of a baseline from the runs the body names; answers `provenance.baseline/v1`. */
function learnBaselineRoute(store: QueryClient<SecurityKinds>): RouteHandler {
  return async (request) => {
    const checked = baselineRequest.check(parseJsonObject(request.body));
    if (!checked.ok) return errorReply('invalid_argument', checked.failure.message);
    const { name, runs, window_s: windowS } = checked.value;
    const params = { name, runs, window_s: windowS ?? 10 };
    return {
      status: 200,
      body: await store.query('learnBaseline', params, { deadlineMs: learnDeadlineMs }),
    };
  };
}

/** POST /v1/security/baselines. */
export const learnBaselineEndpoint: Endpoint<{ store: QueryClient<SecurityKinds> }> = {
  method: 'POST',
  path: '/v1/security/baselines',
  operationId: 'learn_baseline',
  summary: 'Learn a new version of a behaviour baseline from a set of runs (provd extension)',
  description:
    'Learns what the named identity (an agent or a tool) does from 1..1000 known runs: the binaries they executed, the path prefixes (the first two directories of the directory holding a path) they read and wrote, the destinations (`ip:port`) they connected to, the DNS names they looked up, each with how many runs and events showed it (at most 1,000 values per measure, the most common; `truncated` says when a set was cut), and per event type the most events in one 10 s (or 60 s) window. Each learning makes the next version of the name (1, 2, 3, ...); older versions stay. The profile is stored as canonical JSON, and `profile_sha256` tells versions apart. An unknown run is 404 run_not_found naming it.',
  schema: 'baseline',
  answerType: () => typia.json.schemas<[Baseline], '3.1'>(),
  body: 'application/json',
  bodyType: () => typia.json.schemas<[BaselineRequest], '3.1'>(),
  errors: ['404'],
  handler: ({ store }) => learnBaselineRoute(store),
};

/** One page of the learned baselines, by name, the newest version first. */
export const baselinesEndpoint = queryEndpointOf<SecurityKinds>()({
  path: '/v1/security/baselines',
  operationId: 'list_baselines',
  summary: 'One page of the learned baselines, by name, the newest version first (provd extension)',
  schema: 'baselines',
  answerType: () => typia.json.schemas<[BaselineList], '3.1'>(),
  contract: baselinesQuery,
  kind: 'baselines',
  params: ({ name, limit, cursor }) => ({
    name: name ?? null,
    limit: limit ?? defaultPageLimit,
    cursor: cursor ?? null,
  }),
});

/** One version of a baseline, whole, or 404 naming what is not learned. */
export const baselineEndpoint = queryEndpointOf<SecurityKinds>()({
  path: '/v1/security/baseline',
  operationId: 'get_baseline',
  summary: 'One version of a learned baseline, with its whole profile (provd extension)',
  description:
    'The version named, or the latest of the name; a name or version never learned is 404 not_found saying which.',
  schema: 'baseline',
  answerType: () => typia.json.schemas<[Baseline], '3.1'>(),
  contract: baselineQuery,
  kind: 'baseline',
  params: ({ name, version }) => ({ name, version: version ?? null }),
  errors: ['404'],
});
