/**
 * The readiness check behind /v1/ready and /v1/health: one store round trip with a 2-second
 * deadline, judged into a DaemonHealth body (spec: DaemonHealth, provenance.daemon_health/v1).
 */
import type { RecordCgroupRoot } from '../provenance/record/cgroup-root.js';
import type { HostResolvers } from '../security/policy/host-resolvers.js';
import { ProvdError } from '../shared/errors.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { StoreHealthReport, StoreKinds } from '../store/store-health.js';
import type { DaemonHealth, HealthCheck, HealthChecks, NativeCapture } from './daemon-health.js';

/** The spec's readiness deadline. */
export const readinessDeadlineMs = 2000;

/** Before the sensor reports, or without one: said as such, not as zero probes. */
const noCaptureReport: NativeCapture = { status: 'off', message: 'the sensor was not started', probes: {} };

export type Readiness = { status: 200 | 503; health: DaemonHealth };

/**
 * Runs readiness checks for /v1/ready and /v1/health. Requests that arrive while a check is in
 * flight share its answer, so a flood of health probes costs the store thread one check at a time.
 */
export class ReadinessCheck {
  private inFlight: Promise<Readiness> | undefined;
  private stopping = false;

  constructor(
    private readonly store: QueryClient<StoreKinds>,
    /** Checks of the daemon's own capabilities, judged at start, reported beside the store's. */
    private readonly capabilities: HealthChecks = {},
    /** The sensor's capability report (src/sensor/sensor.ts), read at every check. */
    private readonly capture: () => NativeCapture = () => noCaptureReport,
  ) {}

  /** From now on the daemon is shutting down: not ready, whatever the store says. */
  stop(): void {
    this.stopping = true;
  }

  /** 200 when ready, else 503, both with a DaemonHealth body; never rejects. */
  run(): Promise<Readiness> {
    if (this.stopping)
      return Promise.resolve({ status: 503, health: unavailable('shutting_down', this.capture()) });
    this.inFlight ??= this.check().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async check(): Promise<Readiness> {
    let report: StoreHealthReport;
    try {
      report = await this.store.queryJson('health', {}, { deadlineMs: readinessDeadlineMs });
    } catch (error) {
      return { status: 503, health: unavailable(error, this.capture()) };
    }
    const health = judge(report, this.capture());
    Object.assign(health.checks, this.capabilities);
    return { status: health.ready ? 200 : 503, health };
  }
}

function judge(report: StoreHealthReport, capture: NativeCapture): DaemonHealth {
  const { database, format, missing_tables: missing, coverage_gaps: gaps, spool, events_seen: seen } = report;
  const schemaOk = format.compatible && missing.length === 0;
  const ready = database.ok && schemaOk;
  const gapsRecorded = ready && gaps !== null && gaps > 0;
  // An incompatible format explains missing tables too, so it is named first.
  const schemaMessage =
    !format.compatible || missing.length === 0
      ? format.reason
      : `missing required tables: ${missing.join(', ')}`;
  return {
    schema_version: 'provenance.daemon_health/v1',
    status: !ready ? 'unavailable' : gapsRecorded ? 'degraded' : 'ok',
    ready,
    coverage_status: coverageStatus(ready, gapsRecorded, spool, seen),
    checks: {
      database: {
        status: database.ok ? 'ok' : 'failed',
        latency_ms: database.latency_ms,
        ...(database.error && { message: database.error.message, code: database.error.code }),
      },
      schema: {
        status: !database.ok ? 'unknown' : schemaOk ? 'ok' : 'failed',
        format_version: format.found,
        supported_format_version: format.supported,
        missing_tables: missing,
        ...(database.ok && !schemaOk && schemaMessage !== undefined && { message: schemaMessage }),
      },
      coverage: {
        status: !ready ? 'unknown' : gapsRecorded ? 'gaps_recorded' : 'ok',
        recorded_gaps: ready ? gaps : null,
        gaps_by_kind: report.gaps_by_kind,
        truncated_records: report.truncated_records,
        tls_unparsed_messages: report.tls_unparsed_messages,
        ...(gapsRecorded && { message: gapsMessage(report.gaps_by_kind) }),
      },
    },
    queued_spool: spool?.events ?? null,
    queued_spool_bytes: spool?.bytes ?? null,
    native_capture: capture,
  };
}

/**
 * Why coverage is degraded, in a sentence: each kind of recorded loss with what it lost, e.g.
 * "capture loss recorded: sensor_ring_full (2 gaps, 120 events lost), producer_throttle (1 gap)".
 */
function gapsMessage(byKind: StoreHealthReport['gaps_by_kind']): string {
  const kinds = Object.entries(byKind).map(([kind, { gaps, lost_events: lost }]) => {
    const counted = `${gaps} ${gaps === 1 ? 'gap' : 'gaps'}`;
    return `${kind} (${lost === null ? counted : `${counted}, ${lost} events lost`})`;
  });
  return `capture loss recorded: ${kinds.join(', ')}; GET /v1/telemetry/producer-health says where`;
}

/** Whether POST /v1/record can give each command its own cgroup. */
export const noSealingCheck: HealthCheck = {
  status: 'unavailable',
  message:
    'PROVD_FAULT_NO_SEALING is set: events are stored unsealed and no checkpoint is signed, so runs fail verify',
};

/** A path in a message: the host layout a client without the token is not told. */
const absolutePath = /(^|[\s(='"])\/[^\s'",;)]*/g;

/**
 * `value` without the host's paths: `path` fields dropped (the record cgroup, the TLS libraries),
 * absolute paths in messages shown as `<path>`; statuses and counts stay. What a daemon with a token
 * answers on its public health endpoints to a request without the token.
 */
export function withoutHostPaths<T>(value: T): T {
  if (typeof value === 'string') return value.replace(absolutePath, '$1<path>') as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutHostPaths(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key !== 'path' && key !== 'paths')
      kept[key] = key === 'schema_version' ? item : withoutHostPaths(item);
  }
  return kept as T;
}

/**
 * The host's resolvers the policy reads (host_resolvers: DNS to them is no private_cidr risk), and
 * the files they came from (`paths`, dropped for a client without the token).
 */
export function hostResolversCheck(resolvers: HostResolvers): HealthCheck {
  const found = { addresses: resolvers.addresses, paths: resolvers.paths };
  return resolvers.addresses.length > 0
    ? { status: 'ok', ...found }
    : {
        status: 'unavailable',
        message:
          'no nameserver found in resolv.conf: DNS to a resolver in private space is judged as any connection there',
        ...found,
      };
}

/** Whether recorded commands get a cgroup of their own. */
export function recordCgroupCheck(root: RecordCgroupRoot): HealthCheck {
  return root.status === 'ok'
    ? { status: 'ok', path: root.path }
    : { status: 'unavailable', message: `recorded commands run without a cgroup: ${root.message}` };
}

/** Recorded loss first; then events still waiting for a binding; then whether anything was seen. */
function coverageStatus(
  ready: boolean,
  gapsRecorded: boolean,
  spool: StoreHealthReport['spool'],
  seen: boolean | null,
): DaemonHealth['coverage_status'] {
  if (!ready || seen === null) return 'unknown';
  if (gapsRecorded) return 'gaps_recorded';
  if (spool !== null && spool.events > 0) return 'pending';
  return seen ? 'no_recorded_gaps' : 'not_observed';
}

function unavailable(error: unknown, capture: NativeCapture): DaemonHealth {
  const timedOut = error instanceof ProvdError && error.code === 'PROVD_ERR_STORE_TIMEOUT';
  const message =
    error === 'shutting_down'
      ? 'the daemon is shutting down'
      : timedOut
        ? `the readiness check did not finish within ${readinessDeadlineMs} ms`
        : `the store did not answer: ${error instanceof Error ? error.message : String(error)}`;
  return {
    schema_version: 'provenance.daemon_health/v1',
    status: 'unavailable',
    ready: false,
    coverage_status: 'unknown',
    checks: {
      database: { status: timedOut ? 'timeout' : 'failed', message, deadline_ms: readinessDeadlineMs },
      schema: { status: 'unknown' },
      coverage: { status: 'unknown' },
    },
    queued_spool: null,
    queued_spool_bytes: null,
    native_capture: capture,
  };
}
