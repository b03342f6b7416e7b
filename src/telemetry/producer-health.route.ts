/** GET /v1/telemetry/producer-health on the main thread: `run` optional; adds what ingest holds in memory. */
import { optionalId } from '../shared/http/query-params.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** What ingest holds in memory right now (it never reaches the store). */
export interface IngestQueueState {
  inFlightBytes: number;
  refusedRequests: number;
}

export function producerHealthRoute(
  store: QueryClient<TelemetryQueries>,
  ingestState: () => IngestQueueState,
): RouteHandler {
  return async ({ query }) => {
    const { inFlightBytes, refusedRequests } = ingestState();
    const params = {
      run: optionalId(query, 'run') ?? null,
      ingestInFlightBytes: inFlightBytes,
      ingestRefusedRequests: refusedRequests,
    };
    return { status: 200, body: await store.query('producer_health', params, { deadlineMs: 10_000 }) };
  };
}
