/**
 * The daemon's long-lived parts that endpoint handlers are built from. Each endpoint names the
 * parts it needs (Endpoint<Deps>); the endpoint list checks that these hold them.
 */
import type { HookDeps } from '../agents/hooks.route.js';
import type { Watches } from '../agents/watch/watches.js';
import type { IngestRouter } from '../ingest/ingest-router.js';
import type { ProvenanceKinds } from '../provenance/provenance-kinds.js';
import type { RecordDeps } from '../provenance/record/record.route.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import type { CaptureReport } from '../sensor/sensor.js';
import type { SecurityKinds } from '../security/security-kinds.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { BindingLog } from '../telemetry/binding-log.js';
import type { IngestQueueState } from '../telemetry/producer-health.route.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import type { ExportKinds } from '../views/export/export-store.js';
import type { ViewsKinds } from '../views/views-kinds.js';
import type { ReadinessCheck } from './readiness-check.js';

/** Every part any endpoint's handler may ask for. */
export interface RouteDeps {
  store: QueryClient<TelemetryKinds & ProvenanceKinds & SecurityKinds & ViewsKinds & ExportKinds>;
  readiness: ReadinessCheck;
  ingest: IngestRouter;
  /** What ingest holds in memory right now (producer health adds it). */
  ingestState: () => IngestQueueState;
  /** Bindings for the normalize workers; the bind route appends to it. */
  bindingLog: BindingLog;
  /** What POST /v1/record runs commands with, composed by the daemon. */
  record: RecordDeps;
  /** What POST /v1/hooks/{agent} judges and stores with. */
  hooks: HookDeps;
  /** The agents `provd watch` started (POST /v1/watch). */
  watches: Watches;
  /** The policy the gate evaluates with. */
  policy: PolicyEngine;
  /** The sensor's capability report now (GET /metrics reads its counters). */
  capture: () => CaptureReport;
  /** The OpenAPI document's bytes, as served. */
  openapi: () => Uint8Array;
}
