/** GET /v1/telemetry/events on the main thread: check parameters, forward the store's bytes. */
import { queryEndpointOf } from '../shared/http/query-route.js';
import { defaultPageLimit } from '../model/paging.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import { eventsQuery, eventsContract } from './events.contract.js';

/** One page of a run's events; the cursor is checked by the store, which issued it. */
export const eventsEndpoint = queryEndpointOf<TelemetryKinds>()({
  ...eventsContract,
  summary: 'One page of runtime events of a run',
  contract: eventsQuery,
  kind: 'events',
  params: ({ run, type, limit, cursor }) => ({
    run,
    type: type ?? null,
    limit: limit ?? defaultPageLimit,
    cursor: cursor ?? null,
  }),
});
