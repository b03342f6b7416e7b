/**
 * POST /v1/security/baselines (learn a version), GET /v1/security/baselines (the list) and
 * GET /v1/security/baseline (one version, whole) on the main thread: check the request, forward the
 * store's bytes.
 */
import typia from 'typia';
import { errorReply } from '../../shared/http/http-reply.js';
import { parseJsonObject } from '../../shared/http/json-body.js';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityQueries } from '../security-queries.js';
import type { BaselineVersionParam } from './baseline.js';
import { baselineRequest } from './baseline-request.js';

/** Learning folds the events not folded yet and reads one row per distinct value of up to 1,000 runs. */
const learnDeadlineMs = 120_000;
const readDeadlineMs = 10_000;

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
export function learnBaselineRoute(store: QueryClient<SecurityQueries>): RouteHandler {
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

/** One page of the learned baselines, by name, the newest version first. */
export function baselinesRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { name, limit, cursor } = baselinesQuery.parse(query);
    const params = { name: name ?? null, limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('baselines', params, { deadlineMs: readDeadlineMs }) };
  };
}

/** One version of a baseline, whole, or 404 naming what is not learned. */
export function baselineRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { name, version } = baselineQuery.parse(query);
    const params = { name, version: version ?? null };
    return { status: 200, body: await store.query('baseline', params, { deadlineMs: readDeadlineMs }) };
  };
}
