/**
 * GET /v1/telemetry/producer-health in the store actor: what producers sent and what became of it.
 * Sources (accepted per source), drops by reason (invalid lines, spool overflow), disk buffering
 * (the spool, what left it unclaimed or settled late, in-flight ingest), and correlation coverage
 * (of one run, or of everything).
 */
import type { StoreConnection } from '../store/store-connection.js';
import type { tags } from 'typia';
import type { Count, DateTimeText, Ratio } from '../shared/schema/wire-types.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { readRows, sql } from '../store/sql.js';
import {
  evidenceName,
  methodName,
  spoolName,
  type CountsByEvidenceLevel,
  type CountsByMethod,
  type CountsBySpoolState,
} from '../model/codes.js';
import type { CountsByRejection, EventSource } from '../model/event.js';
import { unknownSource } from './unknown-source.js';
import { requireRun } from '../store/run-exists.sql.js';
import type { SpoolLimits } from './spool-limits.js';
import type { SpoolStats } from './spool.sql.js';
import { jsonText, type JsonText } from '../store/json-text.js';

export interface ProducerHealthParams {
  run: string | null;
  /** Ingest bytes the main thread holds that are not committed yet. */
  ingestInFlightBytes: number;
  /** Ingest requests answered 429 since the daemon started. */
  ingestRefusedRequests: number;
}

/** What producers sent and what became of it (`provenance.producer_health/v1`). */
export interface ProducerHealth {
  schema_version: 'provenance.producer_health/v1';
  /** The run whose coverage is shown, or null for every event. */
  run_id: string | null;
  /** Per source: accepted, spooled, no_capture_time, ... */
  sources: { [source in EventSource]?: CountersByName };
  /** What was lost: rejected lines, and spooled events the bounds gave up on before their TTL. */
  drops: {
    invalid: Count;
    invalid_by_reason: CountsByRejection;
    spool_overflowed: Count;
  };
  disk_buffering: {
    spool_events: Count;
    spool_bytes: Count;
    spool_ttl_s: number & tags.Minimum<0>;
    spool_max_events: Count;
    spool_max_bytes: Count;
    spool_settled_late: Count;
    /**
     * Events no binding claimed within the TTL: ordinary host activity, kept as uncorrelated events
     * (spool state `unclaimed`); not a drop and not a coverage gap.
     */
    spool_unclaimed: Count;
    ingest_in_flight_bytes: Count;
    ingest_refused_requests: Count;
  };
  /**
   * What host retention (--retain-host-events-age/-bytes) removed: whole host batches, each removal
   * recorded in the signed host chain (docs/retention.md); `refused_batches` counts, per round,
   * batches kept because their events no longer match their digest.
   */
  host_retention: {
    retained_events: Count;
    retained_batches: Count;
    retained_bytes: Count;
    refused_batches: Count;
  };
  /**
   * verify-host's full verifications (docs/retention.md): a call checks only what changed since the
   * last one, so this says when every host event was last verified again, and how long that took.
   */
  host_verification: {
    full_verifications: Count;
    /** When the last full verification ended, or null when none has since the store was made. */
    last_full_at: DateTimeText | null;
    last_full_ms: Count | null;
  };
  /**
   * The hook transport (docs/agents.md): requests the hook socket refused, by reason, hook
   * events that reached no daemon, read back from the hook spool at a start, by outcome, and
   * PreToolUse events answered and then not stored (`store.failed_after_answer`).
   */
  hooks: { socket: CountersByName; spool: CountersByName; store: CountersByName };
  correlation_coverage: RunCoverage | AllCoverage;
  /** By gap kind (kernel_loss, spool_overflow, ...). */
  coverage_gaps: { [kind: string]: { gaps: Count; lost_events: Count } };
}

/** Counters by name. */
export type CountersByName = { [counter: string]: Count };

/** Correlation coverage of the events of `run_id`. */
export interface RunCoverage {
  scope: 'run';
  events: Count;
  by_evidence_level: CountsByEvidenceLevel;
  by_method: CountsByMethod;
}

/** Correlation coverage of every event, when no run is given. */
export interface AllCoverage {
  scope: 'all';
  events: Count;
  attributed: Count;
  attributed_ratio: Ratio | null;
  by_spool_state: CountsBySpoolState;
}

/** The ProducerHealth body, as JSON text. */
export async function producerHealth(
  connection: StoreConnection,
  params: ProducerHealthParams,
  limits: SpoolLimits,
  /** Read after the counters, so spooled rows a commit gave up meanwhile are not counted twice. */
  spoolStats: () => SpoolStats,
): Promise<JsonText<ProducerHealth>> {
  if (params.run !== null) await requireRun(connection, params.run);
  const counters = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT source, counter, value, updated_ns FROM producer_counters ORDER BY ALL`,
  );
  // counter rows name sources and reasons as the ingest side wrote them
  const sources: Record<string, CountersByName> = {};
  const invalidByReason: Record<string, number> = {};
  let invalid = 0;
  const spool: Record<string, number> = {};
  const host: Record<string, number> = {};
  const hooks: ProducerHealth['hooks'] = { socket: {}, spool: {}, store: {} };
  let lastFullNs: bigint | null = null;
  for (const row of counters) {
    const source = row['source'] as string;
    const counter = row['counter'] as string;
    const value = Number(row['value']);
    if (source === unknownSource && counter === 'invalid') invalid = value;
    else if (source === unknownSource) invalidByReason[counter.replace(/^invalid:/, '')] = value;
    else if (source === 'spool') spool[counter] = value;
    else if (source === 'host') {
      host[counter] = value; // host retention's and verify-host's (provenance/host/host-counters.sql.ts)
      if (counter === 'verified_full') lastFullNs = row['updated_ns'] as bigint;
    } else if (source === 'hook_socket') hooks.socket[counter] = value;
    else if (source === 'hook_spool') hooks.spool[counter] = value;
    else if (source === 'hook_store') hooks.store[counter] = value;
    else (sources[source] ??= {})[counter] = value;
  }
  const ofRun = params.run === null ? sql`` : sql`WHERE run_id = ${params.run} OR run_id IS NULL`;
  const gaps = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT kind, count(*) AS n, coalesce(sum(lost_events), 0) AS lost FROM coverage_gaps ${ofRun}
        GROUP BY kind ORDER BY kind`,
  );
  const stats = spoolStats();
  const body: ProducerHealth = {
    schema_version: 'provenance.producer_health/v1',
    run_id: params.run,
    sources,
    drops: {
      invalid,
      invalid_by_reason: invalidByReason,
      spool_overflowed: spool['overflowed'] ?? 0,
    },
    disk_buffering: {
      spool_events: stats.events,
      spool_bytes: stats.bytes,
      spool_ttl_s: limits.ttlMs / 1000,
      spool_max_events: limits.maxEvents,
      spool_max_bytes: limits.maxBytes,
      spool_settled_late: spool['correlated'] ?? 0,
      spool_unclaimed: spool['unclaimed'] ?? 0,
      ingest_in_flight_bytes: params.ingestInFlightBytes,
      ingest_refused_requests: params.ingestRefusedRequests,
    },
    host_retention: {
      retained_events: host['retained_events'] ?? 0,
      retained_batches: host['retained_batches'] ?? 0,
      retained_bytes: host['retained_bytes'] ?? 0,
      refused_batches: host['retention_refused'] ?? 0,
    },
    host_verification: {
      full_verifications: host['verified_full'] ?? 0,
      last_full_at: lastFullNs === null ? null : formatRfc3339Nanos(lastFullNs),
      last_full_ms: host['verified_full_ms'] ?? null,
    },
    hooks,
    correlation_coverage: await coverage(connection, params.run),
    coverage_gaps: Object.fromEntries(
      gaps.map((row) => [
        row['kind'] as string,
        { gaps: Number(row['n']), lost_events: Number(row['lost']) },
      ]),
    ),
  };
  return jsonText(body);
}

/** Events by evidence level and tier (for a run), or by spool state and evidence level (for all). */
async function coverage(connection: StoreConnection, run: string | null): Promise<RunCoverage | AllCoverage> {
  if (run !== null) {
    const rows = await readRows<Record<string, unknown>>(
      connection,
      sql`SELECT evidence_level, corr_method, count(*) AS n FROM events WHERE run_id = ${run} GROUP BY ALL`,
    );
    const byEvidence: CountsByEvidenceLevel = {};
    const byMethod: CountsByMethod = {};
    let events = 0;
    for (const row of rows) {
      const n = Number(row['n']);
      events += n;
      const level = evidenceName(row['evidence_level'] as number);
      const method = methodName(row['corr_method'] as number);
      byEvidence[level] = (byEvidence[level] ?? 0) + n;
      byMethod[method] = (byMethod[method] ?? 0) + n;
    }
    return { scope: 'run', events, by_evidence_level: byEvidence, by_method: byMethod };
  }
  const rows = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT spool_state, count(*) AS n FROM events GROUP BY ALL`,
  );
  const byState: CountsBySpoolState = {};
  let events = 0;
  for (const row of rows) {
    const n = Number(row['n']);
    events += n;
    byState[spoolName(row['spool_state'] as number)] = n;
  }
  const attributed = byState['settled'] ?? 0;
  return {
    scope: 'all',
    events,
    attributed,
    attributed_ratio: events === 0 ? null : attributed / events,
    by_spool_state: byState,
  };
}
