/** GET /v1/telemetry/events on the main thread: check parameters, forward the store's bytes. */
import { optionalEnum, optionalInteger, requireId } from '../shared/http/query-params.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { eventTypes } from './event.js';
import type { TelemetryQueries } from './telemetry-queries.js';

export const defaultPageLimit = 100;
export const maxPageLimit = 1000;

/** One page of a run's events; the cursor is checked by the store, which issued it. */
export function eventsRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const params = {
      run: requireId(query, 'run'),
      type: optionalEnum(query, 'type', eventTypes) ?? null,
      limit: optionalInteger(query, 'limit', 1, maxPageLimit) ?? defaultPageLimit,
      cursor: query.get('cursor'), // its checks need the issuer's keys: the store makes them
    };
    return { status: 200, body: await store.query('events', params, { deadlineMs: 10_000 }) };
  };
}
