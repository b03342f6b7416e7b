/** GET /v1/telemetry/producer-health on the main thread: `run` optional; adds what ingest holds in memory. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import { queryRoute } from '../shared/http/query-route.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { ProducerHealth } from './producer-health.sql.js';

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

/** Producer health of everything, or of one run, with what ingest holds in memory right now. */
export const producerHealthEndpoint: Endpoint<{
  store: QueryClient<TelemetryKinds>;
  ingestState: () => IngestQueueState;
}> = {
  method: 'GET',
  path: '/v1/telemetry/producer-health',
  operationId: 'telemetry_producer_health',
  summary: 'Disk buffering, drops, sources, correlation coverage',
  schema: 'producer_health',
  answerType: () => typia.json.schemas<[ProducerHealth], '3.1'>(),
  query: producerHealthQuery.parameters,
  handler: ({ store, ingestState }) =>
    queryRoute(store, 'producerHealth', producerHealthQuery, ({ run }) => {
      const { inFlightBytes, refusedRequests } = ingestState();
      return { run: run ?? null, ingestInFlightBytes: inFlightBytes, ingestRefusedRequests: refusedRequests };
    }),
};
