/**
 * Every path of the interface, once. The router and the OpenAPI document are both built from this
 * list, so they cannot disagree. `served: false` marks a path this build answers with 501. A served
 * endpoint's query parameters are those of the query type its route reads (`*.route.ts`).
 */
import { ingestHeaders, ingestQuery } from '../ingest/ingest.route.js';
import { runQuery } from '../provenance/run-query.js';
import { auditAssociationsQuery } from '../security/audit/audit-associations.route.js';
import { baselineQuery, baselinesQuery } from '../security/baseline/baselines.route.js';
import { deviationsQuery } from '../security/baseline/deviations.route.js';
import { responsesQuery } from '../security/responses/responses.route.js';
import { risksQuery } from '../security/risks.route.js';
import { signalsDescription, signalsQuery } from '../security/signals/signals.route.js';
import type { RequestParam } from '../shared/http/param-contract.js';
import {
  contextCompareQuery,
  contextDescriptions,
  contextEntriesQuery,
  contextObjectQuery,
  contextRunQuery,
} from '../views/context/context.route.js';
import { artifactQuery, compareRecordsQuery, recordsDescriptions } from '../views/context/records.route.js';
import { correlationsQuery } from '../telemetry/correlations.route.js';
import { eventsQuery } from '../telemetry/events.route.js';
import { explainQuery } from '../views/explain/explain.route.js';
import { producerHealthQuery } from '../telemetry/producer-health.route.js';
import { runsQuery } from '../telemetry/runs.route.js';
import { searchDescription, searchSourcesQuery } from '../views/search/search.route.js';
import { timelineDescription, timelineQuery } from '../views/timeline/timeline.route.js';
import { windowsQuery } from '../telemetry/windows.route.js';

/** One operation of the HTTP interface. */
export interface Endpoint {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  summary: string;
  /** What the operation's description says before the auth note, when the summary is not enough. */
  description?: string;
  /** The 200 body's `schema_version` is `provenance.<schema>/v1`. */
  schema: string;
  /** No token needed even when bearer auth is on (the health endpoints). */
  public?: boolean;
  query?: readonly RequestParam[];
  /** The request headers its route reads (the server passes only these on). */
  headers?: readonly RequestParam[];
  /** Media type of the request body, for write endpoints. */
  body?: 'application/json' | 'application/x-ndjson';
  /** False while the path is part of the interface but not served yet (answers 501). */
  served: boolean;
}

const auditDescription =
  'One page of policy decisions with what each ties together: the event judged (its hash when judged and now), the risk and the response derived from it, the tool call and binding that attributed the event, and the sealed event_batch object whose Merkle root covers it. Of one run, or without `run` of every run, in event order. GET /v1/graph/verify checks these links.';

/** The whole interface, in the order of the specification. */
export const endpoints = [
  {
    method: 'GET',
    path: '/v1/live',
    operationId: 'liveness',
    summary: 'Liveness: the HTTP process can respond',
    schema: 'daemon_liveness',
    public: true,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/ready',
    operationId: 'readiness',
    summary: 'Readiness: database query and store format check (2 s deadline)',
    schema: 'daemon_health',
    public: true,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/health',
    operationId: 'health',
    summary: 'Health: readiness plus recorded coverage and capture state',
    schema: 'daemon_health',
    public: true,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1.0 document',
    schema: 'openapi',
    served: true,
  },

  {
    method: 'GET',
    path: '/v1/graph/verify',
    operationId: 'verify_run',
    summary:
      'Verify the evidence chain of a run: every object hash, parent link and chain, every event hash and batch Merkle root',
    schema: 'verify',
    query: runQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/graph/keys',
    operationId: 'graph_keys',
    summary: 'The public keys that signed checkpoints in this store, the current one first (provd extension)',
    schema: 'keys',
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/graph/checkpoint',
    operationId: 'graph_checkpoint',
    summary:
      "A run's latest signed checkpoint (DSSE envelope, ed25519), written first if the run moved (provd extension)",
    schema: 'checkpoint',
    query: runQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/graph/explain',
    operationId: 'explain',
    summary: 'Causal path and basis of a node',
    schema: 'explain',
    served: true,
    query: explainQuery.parameters,
  },
  {
    method: 'GET',
    path: '/v1/signals',
    operationId: 'get_signals',
    summary: 'Behaviour, cost, quality and security signals of a run, each with its basis',
    description: signalsDescription,
    schema: 'signals',
    query: signalsQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/timeline',
    operationId: 'get_timeline',
    summary: 'Application context merged with runtime telemetry: a paged table, or a causality tree',
    description: timelineDescription,
    schema: 'timeline',
    served: true,
    query: timelineQuery.parameters,
  },
  {
    method: 'GET',
    path: '/v1/observe/summary',
    operationId: 'observe_summary',
    summary:
      'Observability summary of a run: span, events by type and evidence level, tool calls, processes, files, destinations, coverage, graph',
    schema: 'observability_summary',
    query: runQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/security/risks',
    operationId: 'list_risks',
    summary: 'Security risks of a run',
    description:
      "One page of the run's risks, in the order of their events: each a decision of the policy on one of the run's events that was not a plain allow (deny, quarantine or kill, or allow with a detect-only advisory), with that event as its evidence and its evidence level.",
    schema: 'security_risks',
    query: risksQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/security/responses',
    operationId: 'list_responses',
    summary: 'Response actions taken for a run',
    description:
      "One page of the run's responses, one per risk, in the order of their events: what provd did about the risk or what the caller should do. provd enforces only kill, and only on commands it runs itself (POST /v1/record): it kills the command's cgroup as soon as the decision is made (status enforced, with the outcome). Every other deny, quarantine or kill is recommended to the caller, aimed at the narrowest target the event names (cgroup, process, container, tool call); a detect-only advisory needs none.",
    schema: 'security_responses',
    query: responsesQuery.parameters,
    served: true,
  },
  {
    method: 'POST',
    path: '/v1/security/evaluate',
    operationId: 'evaluate_action',
    summary: 'Policy preflight: the decision for a proposed action',
    description:
      "Evaluates a proposed action with the policy (built-in, or the rules file given with --policy) and answers one decision: allow, deny, quarantine or kill, with the rule and the reason. It executes nothing, blocks nothing, stores nothing and reads no runtime evidence: enforcement is the caller's duty, and a decision is no proof of what later ran.",
    schema: 'gate',
    body: 'application/json',
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/security/deviations',
    operationId: 'list_deviations',
    summary: 'Deviations from the behaviour baseline',
    description:
      "One page of what the run did outside a learned baseline version, the most severe first: binaries it executed, path prefixes it read or wrote, destinations it connected to and DNS names it looked up that the baseline does not hold, and event types whose busiest window held more than the baseline's threshold. Each names the measure, the observed and expected values, the baseline's name and version, a severity (high when the policy flagged one of its events) and its basis: how many events, and the first event ids. Without `baseline`, the name of the most recently learned baseline is used, and the answer says so; with no baseline learned at all, `status` is `no_baseline`, `baseline` is null and the list is empty.",
    schema: 'security_deviations',
    query: deviationsQuery.parameters,
    served: true,
  },
  {
    method: 'POST',
    path: '/v1/security/baselines',
    operationId: 'learn_baseline',
    summary: 'Learn a new version of a behaviour baseline from a set of runs (provd extension)',
    description:
      'Learns what the named identity (an agent or a tool) does from 1..1000 known runs: the binaries they executed, the path prefixes (the first two directories of the directory holding a path) they read and wrote, the destinations (`ip:port`) they connected to, the DNS names they looked up, each with how many runs and events showed it (at most 1,000 values per measure, the most common; `truncated` says when a set was cut), and per event type the most events in one 10 s (or 60 s) window. Each learning makes the next version of the name (1, 2, 3, ...); older versions stay. The profile is stored as canonical JSON, and `profile_sha256` tells versions apart. An unknown run is 404 run_not_found naming it.',
    schema: 'baseline',
    body: 'application/json',
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/security/baselines',
    operationId: 'list_baselines',
    summary: 'One page of the learned baselines, by name, the newest version first (provd extension)',
    schema: 'baselines',
    query: baselinesQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/security/baseline',
    operationId: 'get_baseline',
    summary: 'One version of a learned baseline, with its whole profile (provd extension)',
    description:
      'The version named, or the latest of the name; a name or version never learned is 404 run_not_found saying which.',
    schema: 'baseline',
    query: baselineQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/telemetry/events',
    operationId: 'list_events',
    summary: 'One page of runtime events of a run',
    schema: 'telemetry_events',
    served: true,
    query: eventsQuery.parameters,
  },
  {
    method: 'GET',
    path: '/v1/telemetry/windows',
    operationId: 'list_windows',
    summary: 'Events aggregated in 10 s or 60 s windows',
    schema: 'telemetry_event_windows',
    served: true,
    query: windowsQuery.parameters,
  },
  {
    method: 'GET',
    path: '/v1/telemetry/correlations',
    operationId: 'explain_correlations',
    summary: 'Basis for tying runtime events to a ToolCallScope',
    schema: 'telemetry_correlations',
    query: correlationsQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/telemetry/producer-health',
    operationId: 'telemetry_producer_health',
    summary: 'Disk buffering, drops, sources, correlation coverage',
    schema: 'producer_health',
    query: producerHealthQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/telemetry/audit-associations',
    operationId: 'get_audit_associations',
    summary: 'Audit associations of a run',
    description: auditDescription,
    schema: 'audit_associations',
    query: auditAssociationsQuery.parameters,
    served: true,
  },

  {
    method: 'GET',
    path: '/api/audit/associations',
    operationId: 'api_audit_associations',
    summary: 'Audit associations (the unversioned alias of /v1/telemetry/audit-associations)',
    description: auditDescription,
    schema: 'audit_associations',
    query: auditAssociationsQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/api/compare/records',
    operationId: 'api_compare_records',
    summary: 'Two recorded tool calls compared field by field',
    description: recordsDescriptions.compareRecords,
    schema: 'compare_records',
    query: compareRecordsQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/api/search/sources',
    operationId: 'api_search_sources',
    summary: 'Where a text appears in the evidence: tool calls and events, paged, each page a bounded scan',
    description: searchDescription,
    schema: 'search_sources',
    query: searchSourcesQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/api/artifact',
    operationId: 'api_artifact',
    summary: 'One stored artifact: metadata, who names it, and its bytes (bounded)',
    description: recordsDescriptions.artifact,
    schema: 'artifact',
    query: artifactQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/context/overview',
    operationId: 'context_overview',
    summary: "A run's application context at a glance",
    description: contextDescriptions.overview,
    schema: 'context_overview',
    query: contextRunQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/context/entries',
    operationId: 'context_entries',
    summary: "One page of a run's context objects, in chain order",
    description: contextDescriptions.entries,
    schema: 'context_entries',
    query: contextEntriesQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/context/content',
    operationId: 'context_content',
    summary: 'One object of the graph, its stored bytes and their hash recomputed',
    description: contextDescriptions.content,
    schema: 'context_content',
    query: contextObjectQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/context/compare',
    operationId: 'context_compare',
    summary: "Two runs' recorded tool calls side by side",
    description: contextDescriptions.compare,
    schema: 'context_compare',
    query: contextCompareQuery.parameters,
    served: true,
  },
  {
    method: 'GET',
    path: '/v1/context/links',
    operationId: 'context_links',
    summary: "One object's parents and children in the graph",
    description: contextDescriptions.links,
    schema: 'context_links',
    query: contextObjectQuery.parameters,
    served: true,
  },

  {
    method: 'GET',
    path: '/v1/runs',
    operationId: 'list_runs',
    summary:
      'One page of the known runs, newest first, with their bindings and events counted (provd extension)',
    schema: 'runs',
    served: true,
    query: runsQuery.parameters,
  },

  {
    method: 'POST',
    path: '/v1/telemetry/ingest',
    operationId: 'ingest',
    summary: 'Ingest NDJSON telemetry (format=native|tetragon|falco|auto)',
    schema: 'ingest',
    body: 'application/x-ndjson',
    served: true,
    headers: ingestHeaders.parameters,
    query: ingestQuery.parameters,
  },
  {
    method: 'POST',
    path: '/v1/telemetry/bind',
    operationId: 'bind',
    summary: 'Bind a ToolCallScope to processes, cgroups or containers',
    schema: 'binding',
    body: 'application/json',
    served: true,
  },
  {
    method: 'POST',
    path: '/v1/record',
    operationId: 'record',
    summary: 'Record (and by default execute) a tool call',
    schema: 'record',
    body: 'application/json',
    served: true,
  },
] as const satisfies readonly Endpoint[];

/** The operationIds this build serves: each needs a handler (daemon/handlers.ts), or the build fails. */
/** The media type a client sends its body to `path` as (a query string may follow), if it takes one. */
export function bodyTypeAt(path: string): Endpoint['body'] {
  const bare = path.split('?')[0];
  const list: readonly Endpoint[] = endpoints;
  return list.find((endpoint) => endpoint.path === bare && endpoint.body !== undefined)?.body;
}

export type ServedOperationId = Extract<(typeof endpoints)[number], { served: true }>['operationId'];
