/**
 * GET /v1/telemetry/events as its callers see it: its query and what it answers, without its
 * handler (events.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RunPageQuery } from '../model/paging.js';
import type { TelemetryEvents } from './telemetry-events.js';
import type { EndpointContract } from '../shared/http/endpoint.js';

/** The query string of GET /v1/telemetry/events. */
export type EventsQuery = RunPageQuery;

/** How the events route reads its query, and the endpoint's OpenAPI parameters: both from EventsQuery. */
export const eventsQuery = new ParamContract<EventsQuery>(
  typia.json.schema<EventsQuery, '3.1'>(),
  typia.createValidate<EventsQuery>(),
);

/** GET /v1/telemetry/events: where it is and what it answers. */
export const eventsContract = {
  method: 'GET',
  path: '/v1/telemetry/events',
  operationId: 'list_events',
  schema: 'telemetry_events',
  answerType: () => typia.json.schemas<[TelemetryEvents], '3.1'>(),
} as const satisfies EndpointContract;
