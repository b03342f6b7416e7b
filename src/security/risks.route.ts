/** GET /v1/security/risks on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../model/paging.js';
import type { SecurityQueries } from './security-queries.js';

/** The query string of GET /v1/security/risks. */
export interface RisksQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
}

export const risksQuery = new ParamContract<RisksQuery>(
  typia.json.schema<RisksQuery, '3.1'>(),
  typia.createValidate<RisksQuery>(),
);

/** One page of a run's risks; the cursor is checked by the store, which issued it. */
export function risksRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { run, limit, cursor } = risksQuery.parse(query);
    const params = { run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('risks', params, { deadlineMs: 10_000 }) };
  };
}
