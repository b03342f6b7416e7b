/**
 * The shape of most GET endpoints: read the query string through a ParamContract, forward one
 * store query, answer the bytes the store serialized. A route file declares such an endpoint with
 * `queryEndpointOf<Kinds>()` and states only its facts: path, words, contract, kind, params.
 */
import type { QueryClient, QueryMap } from '../store-protocol.js';
import type { Endpoint } from './endpoint.js';
import type { ParamContract } from './param-contract.js';
import type { RouteHandler } from './route.js';

/** How long these routes wait for the store, unless the endpoint says otherwise. */
const defaultDeadlineMs = 10_000;

/** The route of store query `kind` of `Kinds`, its params made from the checked query by `paramsOf`. */
export function queryRoute<Kinds extends QueryMap, Query extends object, Kind extends keyof Kinds & string>(
  store: QueryClient<Kinds>,
  kind: Kind,
  contract: ParamContract<Query>,
  paramsOf: (query: Query) => Kinds[Kind]['params'],
  deadlineMs = defaultDeadlineMs,
): RouteHandler {
  return async ({ query }) => ({
    status: 200,
    body: await store.query(kind, paramsOf(contract.parse(query)), { deadlineMs }),
  });
}

/** What a query endpoint states: the endpoint's facts, its query contract, its store kind and params. */
export type QueryEndpointSpec<
  Kinds extends QueryMap,
  Query extends object,
  Kind extends keyof Kinds & string,
> = Omit<Endpoint, 'method' | 'query' | 'handler' | 'body' | 'bodyType' | 'headers'> & {
  contract: ParamContract<Query>;
  kind: Kind;
  params: (query: Query) => Kinds[Kind]['params'];
  /** How long it waits for the store (10 s when not said). */
  deadlineMs?: number;
};

/** The GET endpoint that answers store query `kind`; it needs only the store. */
export type QueryEndpoint<Kinds extends QueryMap> = Endpoint<{ store: QueryClient<Kinds> }>;

/**
 * The query-endpoint declarer of one domain's store queries: `queryEndpointOf<SecurityKinds>()`
 * gives a function whose `kind` and `params` are checked against that map.
 */
export function queryEndpointOf<Kinds extends QueryMap>() {
  return <Query extends object, Kind extends keyof Kinds & string>(
    spec: QueryEndpointSpec<Kinds, Query, Kind>,
  ): QueryEndpoint<Kinds> => {
    const { contract, kind, params, deadlineMs, ...facts } = spec;
    return {
      ...facts,
      method: 'GET',
      query: contract.parameters,
      handler: ({ store }) => queryRoute(store, kind, contract, params, deadlineMs),
    };
  };
}
