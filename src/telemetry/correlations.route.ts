/** GET /v1/telemetry/correlations on the main thread: check parameters, forward the store's bytes. */
import { optionalId, requireId } from '../shared/http/query-params.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

export function correlationsRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const params = { run: requireId(query, 'run'), event: optionalId(query, 'event') ?? null };
    return { status: 200, body: await store.query('correlations', params, { deadlineMs: 10_000 }) };
  };
}
