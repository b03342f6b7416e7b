/**
 * The answer of /v1/ready and /v1/health (spec: DaemonHealth, provenance.daemon_health/v1), as the
 * CLI reads it and the readiness check writes it (readiness-check.ts): the wire contract alone, with
 * no store code.
 */
import type { Count } from '../shared/schema/wire-types.js';

/** One named check in `checks`, with details beside its status. */
export interface HealthCheck {
  /** `unavailable`: an optional capability is off (the message says why); readiness does not depend on it. */
  status: 'ok' | 'failed' | 'timeout' | 'unknown' | 'gaps_recorded' | 'unavailable';
  message?: string;
  [detail: string]: unknown;
}

/** Check name to its report. */
export type HealthChecks = { [check: string]: HealthCheck };

/** Per-probe capability and degradation reports of the sensor. */
export type NativeCapture = { [report: string]: unknown };

/** The readiness and coverage of the daemon (spec: DaemonHealth); additional properties are allowed. */
export interface DaemonHealth {
  schema_version: 'provenance.daemon_health/v1';
  status: 'ok' | 'degraded' | 'unavailable';
  /** True when the database query and format check pass; historical capture loss is reported separately. */
  ready: boolean;
  coverage_status: 'unknown' | 'not_observed' | 'no_recorded_gaps' | 'pending' | 'gaps_recorded';
  checks: HealthChecks;
  /** Events waiting in the native spool; null when unknown. */
  queued_spool?: Count | null;
  /** Bytes in the native spool; null when unknown. */
  queued_spool_bytes?: Count | null;
  native_capture?: NativeCapture;
  [extension: string]: unknown;
}
