/**
 * Every path of the interface, in the order of the specification. Each endpoint is declared once,
 * in its route file; the router and the OpenAPI document are both built from this list, so they
 * cannot disagree. An endpoint whose handler asks for a part RouteDeps does not hold fails the build.
 */
import { hookEndpoints } from '../agents/hooks.route.js';
import { watchEndEndpoint, watchEndpoint } from '../agents/watch/watch.route.js';
import { ingestEndpoint } from '../ingest/ingest.route.js';
import { checkpointEndpoint, graphKeysEndpoint } from '../provenance/graph-keys.route.js';
import { recordEndpoint } from '../provenance/record/record.route.js';
import { verifyEndpoint } from '../provenance/verify.route.js';
import { verifyHostEndpoint } from '../provenance/host/verify-host.route.js';
import {
  apiAuditAssociationsEndpoint,
  auditAssociationsEndpoint,
} from '../security/audit/audit-associations.route.js';
import {
  baselineEndpoint,
  baselinesEndpoint,
  learnBaselineEndpoint,
} from '../security/baseline/baselines.route.js';
import { deviationsEndpoint } from '../security/baseline/deviations.route.js';
import { gateEndpoint } from '../security/gate.route.js';
import { responsesEndpoint } from '../security/responses/responses.route.js';
import { risksEndpoint } from '../security/risks.route.js';
import { signalsEndpoint } from '../security/signals/signals.route.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import { bindEndpoint } from '../telemetry/bind.route.js';
import { correlationsEndpoint } from '../telemetry/correlations.route.js';
import { eventsEndpoint } from '../telemetry/events.route.js';
import { hostEventsEndpoint } from '../telemetry/host-events.route.js';
import { producerHealthEndpoint } from '../telemetry/producer-health.route.js';
import { runsEndpoint } from '../telemetry/runs.route.js';
import { summaryEndpoint } from '../telemetry/summary.route.js';
import { windowsEndpoint } from '../telemetry/windows.route.js';
import {
  contextCompareEndpoint,
  contextContentEndpoint,
  contextEntriesEndpoint,
  contextLinksEndpoint,
  contextOverviewEndpoint,
} from '../views/context/context.route.js';
import { artifactEndpoint, compareRecordsEndpoint } from '../views/context/records.route.js';
import { metricsEndpoint } from '../views/metrics/metrics.route.js';
import { attestationEndpoint } from '../views/attest/attestation.route.js';
import { exportEndpoint } from '../views/export/export.route.js';
import { explainEndpoint } from '../views/explain/explain.route.js';
import { searchSourcesEndpoint } from '../views/search/search.route.js';
import { timelineEndpoint } from '../views/timeline/timeline.route.js';
import { healthEndpoint, livenessEndpoint, openapiEndpoint, readinessEndpoint } from './health.route.js';
import type { RouteDeps } from './route-deps.js';

/** The whole interface. */
export const endpoints: readonly Endpoint<RouteDeps>[] = [
  livenessEndpoint,
  readinessEndpoint,
  healthEndpoint,
  openapiEndpoint,

  verifyEndpoint,
  verifyHostEndpoint,
  graphKeysEndpoint,
  checkpointEndpoint,
  attestationEndpoint,
  explainEndpoint,
  signalsEndpoint,
  timelineEndpoint,
  summaryEndpoint,
  risksEndpoint,
  responsesEndpoint,
  gateEndpoint,
  deviationsEndpoint,
  learnBaselineEndpoint,
  baselinesEndpoint,
  baselineEndpoint,
  eventsEndpoint,
  hostEventsEndpoint,
  windowsEndpoint,
  correlationsEndpoint,
  producerHealthEndpoint,
  auditAssociationsEndpoint,

  apiAuditAssociationsEndpoint,
  compareRecordsEndpoint,
  searchSourcesEndpoint,
  artifactEndpoint,
  contextOverviewEndpoint,
  contextEntriesEndpoint,
  contextContentEndpoint,
  contextCompareEndpoint,
  contextLinksEndpoint,

  runsEndpoint,
  metricsEndpoint,
  exportEndpoint,

  ingestEndpoint,
  bindEndpoint,
  recordEndpoint,
  ...hookEndpoints,
  watchEndpoint,
  watchEndEndpoint,
];

/** The media type a client sends its body to `path` as (a query string may follow), if it takes one. */
export function bodyTypeAt(path: string): Endpoint['body'] {
  const bare = path.split('?')[0];
  return endpoints.find((endpoint) => endpoint.path === bare && endpoint.body !== undefined)?.body;
}
