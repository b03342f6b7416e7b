/** GET /v1/observe/summary on the main thread: check `run`, forward the store's bytes. */
import { runQuery } from '../provenance/run-query.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import typia from 'typia';
import type { ObservabilitySummary } from './observability-summary.js';

/** The observability summary of a run. */
export const summaryEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/observe/summary',
  operationId: 'observe_summary',
  summary:
    'Observability summary of a run: span, events by type and evidence level, tool calls, processes, files, destinations, coverage, graph',
  schema: 'observability_summary',
  answerType: () => typia.json.schemas<[ObservabilitySummary], '3.1'>(),
  contract: runQuery,
  kind: 'summary',
  params: ({ run }) => ({ run }),
});
