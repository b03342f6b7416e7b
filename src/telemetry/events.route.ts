/** GET /v1/telemetry/events on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import { defaultPageLimit, type RunPageQuery } from '../model/paging.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { TelemetryEvents } from './telemetry-events.js';

/** The query string of GET /v1/telemetry/events. */
export type EventsQuery = RunPageQuery;

/** How the events route reads its query, and the endpoint's OpenAPI parameters: both from EventsQuery. */
export const eventsQuery = new ParamContract<EventsQuery>(
  typia.json.schema<EventsQuery, '3.1'>(),
  typia.createValidate<EventsQuery>(),
);

/** One page of a run's events; the cursor is checked by the store, which issued it. */
export const eventsEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/telemetry/events',
  operationId: 'list_events',
  summary: 'One page of runtime events of a run',
  schema: 'telemetry_events',
  answerType: () => typia.json.schemas<[TelemetryEvents], '3.1'>(),
  contract: eventsQuery,
  kind: 'events',
  params: ({ run, type, limit, cursor }) => ({
    run,
    type: type ?? null,
    limit: limit ?? defaultPageLimit,
    cursor: cursor ?? null,
  }),
});
