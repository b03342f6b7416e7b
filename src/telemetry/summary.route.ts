/** GET /v1/observe/summary on the main thread: check `run`, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** The query string of GET /v1/observe/summary. */
export interface SummaryQuery {
  /** run identifier */
  run: string;
}

/** How the summary route reads its query, and the endpoint's OpenAPI parameters. */
export const summaryQuery = new ParamContract<SummaryQuery>(
  typia.json.schema<SummaryQuery, '3.1'>(),
  typia.createValidate<SummaryQuery>(),
);

/** The observability summary of a run. */
export function summaryRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const { run } = summaryQuery.parse(query);
    return { status: 200, body: await store.query('summary', { run }, { deadlineMs: 10_000 }) };
  };
}
