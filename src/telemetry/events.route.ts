/** GET /v1/telemetry/events on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { defaultPageLimit, type RunPageQuery } from '../model/paging.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** The query string of GET /v1/telemetry/events. */
export type EventsQuery = RunPageQuery;

/** How the events route reads its query, and the endpoint's OpenAPI parameters: both from EventsQuery. */
export const eventsQuery = new ParamContract<EventsQuery>(
  typia.json.schema<EventsQuery, '3.1'>(),
  typia.createValidate<EventsQuery>(),
);

/** One page of a run's events; the cursor is checked by the store, which issued it. */
export function eventsRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const { run, type, limit, cursor } = eventsQuery.parse(query);
    const params = { run, type: type ?? null, limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('events', params, { deadlineMs: 10_000 }) };
  };
}
