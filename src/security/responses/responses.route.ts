/** GET /v1/security/responses on the main thread: check parameters, forward the store's bytes. */
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit } from '../../model/paging.js';
import { risksQuery } from '../risks.route.js';
import type { SecurityQueries } from '../security-queries.js';

/** Its query string: the risks page's (`run`, `limit`, `cursor`). */
export const responsesQuery = risksQuery;

/** One page of a run's responses; the cursor is checked by the store, which issued it. */
export function responsesRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { run, limit, cursor } = responsesQuery.parse(query);
    const params = { run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('responses', params, { deadlineMs: 10_000 }) };
  };
}
