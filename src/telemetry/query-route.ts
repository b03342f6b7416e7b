/**
 * A route that reads its query string through a ParamContract and forwards one telemetry store
 * query, answering the bytes the store serialized: the shape of the /v1/context/* and /api/* routes.
 */
import type { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** How long these routes wait for the store. */
const deadlineMs = 10_000;

/** The route of store query `kind`, its params made from the checked query by `paramsOf`. */
export function queryRoute<Query extends object, Kind extends keyof TelemetryQueries>(
  store: QueryClient<TelemetryQueries>,
  kind: Kind,
  contract: ParamContract<Query>,
  paramsOf: (query: Query) => TelemetryQueries[Kind]['params'],
): RouteHandler {
  return async ({ query }) => ({
    status: 200,
    body: await store.query(kind, paramsOf(contract.parse(query)), { deadlineMs }),
  });
}
