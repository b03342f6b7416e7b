/**
 * What `provd health` prints: the status first, then why it is not ok: each check that did not
 * pass with its message and details, the coverage, the spool, and the sensor's degradations.
 */
import type { DaemonHealth, HealthCheck } from '../../daemon/daemon-health.js';
import type { ProbeReport } from '../../sensor/sensor.js';
import { visible, type Paint, type Style } from '../output/style.js';

const statusPaint: Record<DaemonHealth['status'], Paint> = {
  ok: 'green',
  degraded: 'yellow',
  unavailable: 'red',
};

/** `health: degraded (ready)`, then a `why:` list when something is not ok, then the checks. */
export function formatHealth(health: DaemonHealth, style: Style): string {
  const lines = [
    `health: ${style.paint(health.status, statusPaint[health.status])} (${health.ready ? 'ready' : 'not ready'})`,
  ];
  const reasons = [...failedChecks(health), ...coverageReasons(health), ...captureReasons(health)];
  if (reasons.length > 0) lines.push('why:', ...reasons.map((reason) => `  - ${visible(reason)}`));
  lines.push('checks:');
  const checks = Object.entries(health.checks);
  const width = Math.max(...checks.map(([name]) => name.length));
  const statusWidth = Math.max(...checks.map(([, check]) => check.status.length));
  for (const [name, check] of checks) {
    const paint = check.status === 'ok' ? 'green' : check.status === 'unavailable' ? undefined : 'red';
    const status = style.paint(check.status.padEnd(statusWidth), paint);
    lines.push(`  ${visible(name).padEnd(width)}  ${status}${visible(details(check))}`.trimEnd());
  }
  lines.push(`coverage: ${health.coverage_status}`);
  lines.push(
    `spool: ${count(health.queued_spool)} events, ${count(health.queued_spool_bytes)} bytes waiting for a binding`,
  );
  return lines.map((line) => line + '\n').join('');
}

/** A check that failed, timed out or is unknown, with its message (an off capability is not one). */
function failedChecks(health: DaemonHealth): string[] {
  return Object.entries(health.checks)
    .filter(([, check]) => !['ok', 'unavailable', 'gaps_recorded'].includes(check.status))
    .map(
      ([name, check]) =>
        `check ${name} ${check.status}${check.message === undefined ? '' : `: ${check.message}`}${missingTables(check)}`,
    );
}

function missingTables(check: HealthCheck): string {
  const missing = check['missing_tables'];
  return Array.isArray(missing) && missing.length > 0 && check.message === undefined
    ? ` (missing tables: ${missing.join(', ')})`
    : '';
}

/** Recorded capture loss: what makes a ready daemon degraded. */
function coverageReasons(health: DaemonHealth): string[] {
  if (health.coverage_status !== 'gaps_recorded') return [];
  const coverage = health.checks['coverage'];
  // the daemon names each kind of loss and what it lost (checks.coverage.message)
  if (typeof coverage?.message === 'string') return [coverage.message];
  const gaps = coverage?.['recorded_gaps'];
  const counted =
    typeof gaps === 'number' ? `${gaps} coverage ${gaps === 1 ? 'gap' : 'gaps'}` : 'coverage gaps';
  return [
    `${counted} recorded: capture was lost (see GET /v1/telemetry/producer-health for which kinds and runs)`,
  ];
}

/** The sensor's report: degraded or failed, probes not attached, drops counted. */
function captureReasons(health: DaemonHealth): string[] {
  const capture = health.native_capture;
  if (capture === undefined) return [];
  const reasons: string[] = [];
  const status = capture['status'];
  if (typeof status === 'string' && !['ok', 'off', 'running'].includes(status)) {
    reasons.push(
      `sensor ${status}${typeof capture['message'] === 'string' ? `: ${capture['message']}` : ''}`,
    );
  }
  const dropped = capture['dropped'];
  if (dropped !== null && typeof dropped === 'object') {
    for (const [reason, value] of Object.entries(dropped)) {
      if (typeof value === 'number' && value > 0) reasons.push(`sensor dropped ${value} events (${reason})`);
    }
  }
  const probes = capture['probes'];
  if (probes !== null && typeof probes === 'object') {
    for (const [name, probe] of Object.entries(probes as Record<string, Partial<ProbeReport>>)) {
      reasons.push(...probeReasons(name, probe));
    }
  }
  return reasons;
}

/** A probe that did not attach, and the loss its kernel side counted (sensor.ts: ProbeReport). */
function probeReasons(name: string, probe: Partial<ProbeReport>): string[] {
  const reasons: string[] = [];
  if (probe.attached === false) {
    const which = probe.required === true ? 'required' : 'optional';
    reasons.push(`probe ${name} (${which}) not attached${probe.error ? `: ${probe.error}` : ''}`);
  }
  for (const loss of ['ring_full', 'pending_full', 'missed', 'truncated'] as const) {
    const value = probe[loss];
    if (typeof value === 'number' && value > 0) reasons.push(`probe ${name}: ${value} ${loss}`);
  }
  return reasons;
}

/** A check's details beside its status: its message, else (or when `why` says it) its scalar fields. */
function details(check: HealthCheck): string {
  if (check.message !== undefined && check.status !== 'gaps_recorded') return `  ${check.message}`;
  const facts = Object.entries(check)
    .map(([key, value]): [string, unknown] => [key, Array.isArray(value) ? listText(value) : value])
    .filter(
      ([key, value]) =>
        key !== 'status' && key !== 'message' && (typeof value === 'number' || typeof value === 'string'),
    )
    .map(([key, value]) => `${key} ${String(value)}`);
  return facts.length === 0 ? '' : `  ${facts.join(', ')}`;
}

/** A list of names or numbers as words (`addresses 10.0.0.2 192.168.1.1`); undefined when empty or not such a list. */
function listText(values: unknown[]): string | undefined {
  const words = values.filter((value) => typeof value === 'string' || typeof value === 'number');
  return words.length === 0 || words.length !== values.length ? undefined : words.join(' ');
}

function count(value: number | null | undefined): string {
  return value === null || value === undefined ? 'unknown' : String(value);
}
