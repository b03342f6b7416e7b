/** GET /v1/telemetry/producer-health on the main thread: `run` optional; adds what ingest holds in memory. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryQueries } from './telemetry-queries.js';

/** What ingest holds in memory right now (it never reaches the store). */
export interface IngestQueueState {
  inFlightBytes: number;
  refusedRequests: number;
}

/** The query string of GET /v1/telemetry/producer-health. */
export interface ProducerHealthQuery {
  /** run identifier: coverage of this run's events instead of every event */
  run?: Identifier;
}

/** How the producer-health route reads its query, and the endpoint's OpenAPI parameters. */
export const producerHealthQuery = new ParamContract<ProducerHealthQuery>(
  typia.json.schema<ProducerHealthQuery, '3.1'>(),
  typia.createValidate<ProducerHealthQuery>(),
);

/** Producer health of everything, or of one run; `ingestState` adds what ingest holds in memory. */
export function producerHealthRoute(
  store: QueryClient<TelemetryQueries>,
  ingestState: () => IngestQueueState,
): RouteHandler {
  return async ({ query }) => {
    const { run } = producerHealthQuery.parse(query);
    const { inFlightBytes, refusedRequests } = ingestState();
    const params = {
      run: run ?? null,
      ingestInFlightBytes: inFlightBytes,
      ingestRefusedRequests: refusedRequests,
    };
    return { status: 200, body: await store.query('producer_health', params, { deadlineMs: 10_000 }) };
  };
}
