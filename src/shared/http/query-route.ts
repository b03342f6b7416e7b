/**
 * A route that reads its query string through a ParamContract and forwards one store query,
 * answering the bytes the store serialized: the shape of most GET endpoints.
 */
import type { QueryClient, QueryMap } from '../store-protocol.js';
import type { ParamContract } from './param-contract.js';
import type { RouteHandler } from './route.js';

/** How long these routes wait for the store. */
const deadlineMs = 10_000;

/** The route of store query `kind` of `Queries`, its params made from the checked query by `paramsOf`. */
export function queryRoute<
  Queries extends QueryMap,
  Query extends object,
  Kind extends keyof Queries & string,
>(
  store: QueryClient<Queries>,
  kind: Kind,
  contract: ParamContract<Query>,
  paramsOf: (query: Query) => Queries[Kind]['params'],
): RouteHandler {
  return async ({ query }) => ({
    status: 200,
    body: await store.query(kind, paramsOf(contract.parse(query)), { deadlineMs }),
  });
}
