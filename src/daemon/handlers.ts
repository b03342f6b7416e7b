/**
 * The handler of every served endpoint, by operationId (see endpoints.ts). The record is typed by
 * the endpoint list: an endpoint marked served without a handler here fails the build.
 */
import { ingestRoute } from '../ingest/ingest.route.js';
import type { ProvenanceQueries } from '../provenance/provenance-queries.js';
import { checkpointRoute, graphKeysRoute } from '../provenance/graph-keys.route.js';
import type { RecordCgroupRoot } from '../provenance/record/cgroup-root.js';
import { recordRoute } from '../provenance/record/record.route.js';
import { verifyRoute } from '../provenance/verify.route.js';
import { gateRoute } from '../security/gate.route.js';
import { baselineRoute, baselinesRoute, learnBaselineRoute } from '../security/baseline/baselines.route.js';
import { deviationsRoute } from '../security/baseline/deviations.route.js';
import { risksRoute } from '../security/risks.route.js';
import { auditAssociationsRoute } from '../security/audit/audit-associations.route.js';
import type { KillSwitch } from '../security/responses/kill-switch.js';
import { responsesRoute } from '../security/responses/responses.route.js';
import { signalsRoute } from '../security/signals/signals.route.js';
import type { SecurityQueries } from '../security/security-queries.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import type { IngestRouter } from '../ingest/ingest-router.js';
import { jsonReply } from '../shared/http/http-reply.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { bindRoute } from '../telemetry/bind.route.js';
import type { BindingLog } from '../telemetry/binding-log.js';
import { contextRoutes } from '../views/context/context.route.js';
import { recordsRoutes } from '../views/context/records.route.js';
import { correlationsRoute } from '../telemetry/correlations.route.js';
import { eventsRoute } from '../telemetry/events.route.js';
import { explainRoute } from '../views/explain/explain.route.js';
import { recordBinder } from '../telemetry/record-binding.js';
import { producerHealthRoute } from '../telemetry/producer-health.route.js';
import { runsRoute } from '../telemetry/runs.route.js';
import { searchRoute } from '../views/search/search.route.js';
import { summaryRoute } from '../telemetry/summary.route.js';
import type { TelemetryQueries } from '../telemetry/telemetry-queries.js';
import { timelineRoute } from '../views/timeline/timeline.route.js';
import { windowsRoute } from '../telemetry/windows.route.js';
import { withoutHostPaths, type ReadinessCheck } from './daemon-health.js';
import type { ServedOperationId } from './endpoints.js';
import { livenessReply } from './liveness.js';
import { openapiBytes } from './openapi.js';
import type { CommandUserPolicy } from '../provenance/record/command-user.js';
import type { SnapshotPool } from '../provenance/record/snapshot-pool.js';
import type { ViewsQueries } from '../views/views-queries.js';

/** The daemon's long-lived parts that handlers are built from. */
export interface HandlerDeps {
  store: QueryClient<TelemetryQueries & ProvenanceQueries & SecurityQueries & ViewsQueries>;
  readiness: ReadinessCheck;
  ingest: IngestRouter;
  /** Bindings for the normalize workers; the bind route appends to it. */
  bindingLog: BindingLog;
  /** Where POST /v1/record makes its cgroups, or why it cannot. */
  recordCgroupRoot: RecordCgroupRoot;
  /** The daemon checks a bearer token (POST /v1/record executes only then). */
  authConfigured: boolean;
  /** Whom POST /v1/record runs commands as. */
  recordUsers: CommandUserPolicy;
  /** The threads POST /v1/record takes its snapshots of cwd on. */
  snapshots: SnapshotPool;
  /** The policy the gate evaluates with. */
  policy: PolicyEngine;
  /** Kills the commands POST /v1/record runs when the policy decides `kill` on their events. */
  killSwitch: KillSwitch;
}

/** One handler per served operationId. */
export function buildHandlers(deps: HandlerDeps): Record<ServedOperationId, RouteHandler> {
  const { store, readiness, ingest, bindingLog } = deps;
  const record = recordRoute({
    store,
    bind: recordBinder(store, bindingLog),
    cgroupRoot: deps.recordCgroupRoot,
    authConfigured: deps.authConfigured,
    users: deps.recordUsers,
    snapshot: (root, limits) => deps.snapshots.take(root, limits),
    defaultCwd: process.cwd(),
    watchKills: deps.killSwitch.watch,
  });
  const health: RouteHandler = async (request) => {
    const { status, health } = await readiness.run();
    // the health endpoints need no token: without it, they do not tell where things are on the host
    const reply = jsonReply(status, request.authenticated ? health : withoutHostPaths(health));
    // not ready: the check runs again (and a lost store is reopened) at the next probe
    return status === 503 ? { ...reply, headers: { 'retry-after': '5' } } : reply;
  };
  const auditAssociations = auditAssociationsRoute(store);
  return {
    liveness: () => livenessReply,
    readiness: health,
    health,
    openapi: () => ({ status: 200, body: openapiBytes }),
    ingest: ingestRoute(ingest),
    bind: bindRoute(store, bindingLog),
    list_events: eventsRoute(store),
    list_windows: windowsRoute(store),
    explain_correlations: correlationsRoute(store),
    telemetry_producer_health: producerHealthRoute(store, () => ({
      inFlightBytes: ingest.queuedBytes,
      refusedRequests: ingest.refusedRequests,
    })),
    list_runs: runsRoute(store),
    verify_run: verifyRoute(store),
    explain: explainRoute(store),
    observe_summary: summaryRoute(store),
    get_timeline: timelineRoute(store),
    graph_keys: graphKeysRoute(store),
    graph_checkpoint: checkpointRoute(store),
    record,
    evaluate_action: gateRoute(deps.policy),
    list_risks: risksRoute(store),
    list_responses: responsesRoute(store),
    get_audit_associations: auditAssociations,
    api_audit_associations: auditAssociations,
    get_signals: signalsRoute(store),
    ...contextRoutes(store),
    ...recordsRoutes(store),
    api_search_sources: searchRoute(store),
    list_deviations: deviationsRoute(store),
    learn_baseline: learnBaselineRoute(store),
    list_baselines: baselinesRoute(store),
    get_baseline: baselineRoute(store),
  };
}
