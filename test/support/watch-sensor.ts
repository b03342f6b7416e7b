/** Skips a suite of `provd watch` with the sensor where it cannot run (no root, BTF or cgroup for watched agents). */
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';

/** A `before` hook: skips the suite, saying why, when the sensor or a cgroup for watched agents is missing. */
export function skipWithoutWatchSensor(this: Mocha.Context): void {
  const why =
    sensorUnavailable() ??
    (probeRecordCgroupRoot(undefined, 'provd-watch').status !== 'ok'
      ? 'no cgroup for watched agents'
      : undefined);
  if (why === undefined) return;
  process.stderr.write(`      skipped: ${why}\n`);
  this.skip();
}
