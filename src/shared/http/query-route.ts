/**
 * The shape of most GET endpoints: read the query string through a ParamContract, forward one
 * store query, answer the bytes the store serialized. A route file declares such an endpoint with
 * `queryEndpointOf<Queries>()` and states only its facts: path, words, contract, kind, params.
 */
import type { QueryClient, QueryMap } from '../store-protocol.js';
import type { Endpoint } from './endpoint.js';
import type { ParamContract } from './param-contract.js';
import type { RouteHandler } from './route.js';

/** How long these routes wait for the store, unless the endpoint says otherwise. */
const defaultDeadlineMs = 10_000;

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
  deadlineMs = defaultDeadlineMs,
): RouteHandler {
  return async ({ query }) => ({
    status: 200,
    body: await store.query(kind, paramsOf(contract.parse(query)), { deadlineMs }),
  });
}

/** What a query endpoint states: the endpoint's facts, its query contract, its store kind and params. */
export type QueryEndpointSpec<
  Queries extends QueryMap,
  Query extends object,
  Kind extends keyof Queries & string,
> = Omit<Endpoint, 'method' | 'query' | 'handler' | 'body' | 'bodySchema' | 'headers'> & {
  contract: ParamContract<Query>;
  kind: Kind;
  params: (query: Query) => Queries[Kind]['params'];
  /** How long it waits for the store (10 s when not said). */
  deadlineMs?: number;
};

/** The GET endpoint that answers store query `kind`; it needs only the store. */
export type QueryEndpoint<Queries extends QueryMap> = Endpoint<{ store: QueryClient<Queries> }>;

/**
 * The query-endpoint declarer of one domain's store queries: `queryEndpointOf<SecurityQueries>()`
 * gives a function whose `kind` and `params` are checked against that map.
 */
export function queryEndpointOf<Queries extends QueryMap>() {
  return <Query extends object, Kind extends keyof Queries & string>(
    spec: QueryEndpointSpec<Queries, Query, Kind>,
  ): QueryEndpoint<Queries> => {
    const { contract, kind, params, deadlineMs, ...facts } = spec;
    return {
      ...facts,
      method: 'GET',
      query: contract.parameters,
      handler: ({ store }) => queryRoute(store, kind, contract, params, deadlineMs),
    };
  };
}
