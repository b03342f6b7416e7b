/**
 * A route that reads its query string through a ParamContract and forwards one provenance store
 * query, answering the bytes the store serialized: the shape of every /v1/context/* and /api/* route.
 */
import type { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import type { ProvenanceQueries } from '../provenance-queries.js';

/** How long these routes wait for the store. */
const deadlineMs = 10_000;

/** The route of store query `kind`, its params made from the checked query by `paramsOf`. */
export function queryRoute<Query extends object, Kind extends keyof ProvenanceQueries>(
  store: QueryClient<ProvenanceQueries>,
  kind: Kind,
  contract: ParamContract<Query>,
  paramsOf: (query: Query) => ProvenanceQueries[Kind]['params'],
): RouteHandler {
  return async ({ query }) => ({
    status: 200,
    body: await store.query(kind, paramsOf(contract.parse(query)), { deadlineMs }),
  });
}
