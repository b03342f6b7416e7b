/** GET /v1/observe/summary on the main thread: check `run`, forward the store's bytes. */
import { runQuery } from '../provenance/run-query.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** The observability summary of a run. */
export function summaryRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const { run } = runQuery.parse(query);
    return { status: 200, body: await store.query('summary', { run }, { deadlineMs: 10_000 }) };
  };
}
