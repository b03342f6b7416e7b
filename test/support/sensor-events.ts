/** Helpers of the sensor's end-to-end tests: stored events of a run, and what the host can do. */
import assert from 'node:assert/strict';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import type { RunningDaemon } from './daemon.js';
import { request } from './http.js';
import { eventually, softDeadline } from './eventually.js';

/** The trigger program of the sensor tests (test/fixtures/sensor/trigger.py). */
export const trigger = fileURLToPath(new URL('../../../test/fixtures/sensor/trigger.py', import.meta.url));

/** An event as GET /v1/telemetry/events answers it. */
export interface StoredEvent {
  type: string;
  source: string;
  tool_call_id: string | null;
  correlation: { method: string; confidence: number | null; evidence_level: string };
  attrs: Record<string, unknown>;
  [field: string]: unknown;
}

/** Every event of the run, page after page. */
export async function listEvents(
  daemon: RunningDaemon,
  run: string,
  headers: Record<string, string>,
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  let cursor = '';
  do {
    const page = `/v1/telemetry/events?run=${run}&limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await request(daemon.url, page, { headers });
    assert.equal(status, 200, JSON.stringify(body));
    events.push(...(body['events'] as StoredEvent[]));
    cursor = (body['next_cursor'] as string | null) ?? '';
  } while (cursor !== '');
  return events;
}

/** The run's events, once one matches `wanted` (they reach the store within a batch's flush and commit). */
export async function awaitEvents(
  daemon: RunningDaemon,
  run: string,
  headers: Record<string, string>,
  wanted: (events: StoredEvent[]) => boolean,
): Promise<StoredEvent[]> {
  // the caller's assertions name what is missing: the last answer is returned, not failed here
  return eventually(`events of ${run}`, () => listEvents(daemon, run, headers), wanted, softDeadline);
}

/** A `before` hook: skips the suite, saying why, where the sensor cannot run (no root, BTF or build). */
export function skipWithoutSensor(this: Mocha.Context): void {
  const why = sensorUnavailable();
  if (why === undefined) return;
  process.stderr.write(`      skipped: ${why}\n`);
  this.skip();
}

/**
 * Runs `command ARGS` in `cwd` as the recorded command `run` (its tool call `RUN-call`), which must
 * exit 0; its run's sensor events, each kernel-correlated, once `done` holds for them.
 */
export async function recordSensed(
  daemon: RunningDaemon,
  headers: Record<string, string>,
  cwd: string,
  run: string,
  command: string,
  args: string[],
  done: (events: StoredEvent[]) => boolean,
): Promise<StoredEvent[]> {
  const cgroups = probeRecordCgroupRoot();
  if (cgroups.status !== 'ok') throw new Error(`recorded commands get no cgroup here: ${cgroups.message}`);
  const recorded = await request(daemon.url, '/v1/record', {
    method: 'POST',
    headers,
    body: JSON.stringify({ run_id: run, tool_call_id: `${run}-call`, command, args, cwd }),
  });
  assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  assert.equal(recorded.body['exit_code'], 0, JSON.stringify(recorded.body['stderr']));
  const sensed = (events: StoredEvent[]): StoredEvent[] =>
    events.filter((event) => event.source === 'provd_sensor');
  const events = sensed(await awaitEvents(daemon, run, headers, (all) => done(sensed(all))));
  for (const event of events) assert.equal(event.correlation.evidence_level, 'kernel_correlated');
  return events;
}

/** Whether `command` is an executable on PATH, where the recorded command and the trigger look for it. */
export function isOnPath(command: string): boolean {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why the classified trigger cannot have a network namespace of its own here, or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'creating a network namespace needs root';
  if (!isOnPath('unshare'))
    return 'unshare (util-linux) is not installed: it gives the trigger its namespace';
  if (!isOnPath('ip')) return 'ip (iproute2) is not installed: the trigger gives lo its addresses with it';
  return undefined;
}
