/**
 * GET /metrics: the daemon's counters in the Prometheus text format, behind the token like every
 * non-health endpoint (what a producer sent and lost tells an attacker what the host watches). One
 * store query per scrape; a store that does not answer still gives a scrape, with provd_store_up 0.
 */
import type { CaptureReport } from '../../sensor/sensor.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import type { IngestQueueState } from '../../telemetry/producer-health.route.js';
import type { ViewsKinds } from '../views-kinds.js';
import type { MetricsFacts } from './metrics-facts.sql.js';
import { metricsText } from './metrics-text.js';
import { prometheusContentType } from './prometheus-text.js';

/** Below Prometheus's default scrape timeout (10 s), so a slow store still gives an answer in time. */
const storeDeadlineMs = 5000;

export const metricsEndpoint: Endpoint<{
  store: QueryClient<ViewsKinds>;
  ingestState: () => IngestQueueState;
  capture: () => CaptureReport;
}> = {
  method: 'GET',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics: ingest, drops, coverage gaps, queues, risks, store size',
  description:
    'The Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4`), not JSON. ' +
    'docs/operations.md lists the metric families.',
  schema: 'prometheus',
  handler:
    ({ store, ingestState, capture }) =>
    async () => {
      let facts: MetricsFacts | null;
      try {
        facts = await store.queryJson('metricsFacts', {}, { deadlineMs: storeDeadlineMs });
      } catch {
        facts = null; // said in the scrape as provd_store_up 0; the store's failure is logged where it happens
      }
      const body = metricsText(facts, ingestState(), capture());
      return { status: 200, body, headers: { 'content-type': prometheusContentType } };
    },
};
