/** GET /v1/telemetry/producer-health on the main thread: `run` optional; adds what ingest holds in memory. */
import { optionalId } from '../daemon/query-params.js';
import type { RouteHandler } from '../daemon/router.js';

export const producerHealthRoute: RouteHandler = async (request, { store, ingest }) => {
  const params = {
    run: optionalId(request.query, 'run') ?? null,
    ingestInFlightBytes: ingest.queuedBytes,
    ingestRefusedRequests: ingest.refusedRequests,
  };
  return { status: 200, body: await store.query('producer_health', params, 10_000) };
};
