/** GET /v1/runs on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../model/paging.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** The query string of GET /v1/runs. */
export type RunsQuery = PageQuery;

/** How the runs route reads its query, and the endpoint's OpenAPI parameters: both from RunsQuery. */
export const runsQuery = new ParamContract<RunsQuery>(
  typia.json.schema<RunsQuery, '3.1'>(),
  typia.createValidate<RunsQuery>(),
);

/** One page of the known runs, newest first; the cursor is checked by the store, which issued it. */
export function runsRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const { limit, cursor } = runsQuery.parse(query);
    const params = { limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('runs', params, { deadlineMs: 10_000 }) };
  };
}
