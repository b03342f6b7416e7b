// Runs alone (test/support/run-suites.mjs), though its sensor captures only the command it records:
// the flood must fill the ring while its reader stalls 2 s, and it failed beside the parallel
// phase's files at load 15. The sensor's other end-to-end tests are sensor.test.
import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { recordSensed, skipWithoutSensor, trigger } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'sensor-test-token';
const auth = { authorization: `Bearer ${token}` };

describe('the eBPF sensor with its ring buffer full', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-sensor-');
  before(skipWithoutSensor);

  it('counts what a full ring buffer dropped per probe, and records it as a coverage gap', async function () {
    // the reader sleeps 2 s after each poll: 50,000 opens overflow the 4 MiB ring buffer meanwhile
    const daemon = await fixture.start({
      sensor: true,
      authToken: token,
      env: { PROVD_FAULT_SENSOR_STALL_MS: '2000' },
    });
    await recordSensed(
      daemon,
      auth,
      work.path,
      'run-flood',
      'python3',
      [trigger, 'flood', '50000'],
      () => true,
    );
    // records of every probe the full ring refused, as the kernel counts them now
    const kernelCount = async (): Promise<{ total: number; probes: unknown }> => {
      const capture = (await request(daemon.url, '/v1/health')).body['native_capture'] as {
        probes: Record<string, { ring_full: number }>;
      };
      const total = Object.values(capture.probes).reduce((sum, probe) => sum + probe.ring_full, 0);
      return { total, probes: capture.probes };
    };
    // the host goes on opening files while the ring is full: the count may grow between reads,
    // so the gaps must hold every drop counted before them, and none the kernel did not count
    const read = async (): Promise<{
      before: { total: number };
      recorded: number;
      after: { total: number };
      gaps: unknown;
    }> => {
      const before = await kernelCount();
      const producers = (await request(daemon.url, '/v1/telemetry/producer-health', { headers: auth })).body;
      const gaps = producers['coverage_gaps'] as Record<string, { gaps: number; lost_events: number }>;
      const recorded = gaps['sensor_ring_full']?.lost_events ?? 0;
      return { before, recorded, after: await kernelCount(), gaps };
    };
    const seen = await eventually(
      'every dropped record in a coverage gap',
      read,
      ({ before, recorded, after }) =>
        before.total > 0 && recorded >= before.total && recorded <= after.total,
      { timeoutMs: 20_000, everyMs: 200, returnLast: true },
    );
    const { before, recorded, after } = seen;
    assert.ok(before.total > 0, 'the kernel counted records it had no room for');
    const evidence = JSON.stringify(seen);
    assert.ok(recorded >= before.total, `every dropped record is in a coverage gap: ${evidence}`);
    assert.ok(recorded <= after.total, `no gap counts a record the kernel did not drop: ${evidence}`);
    const health = (await request(daemon.url, '/v1/health')).body;
    assert.equal(health['status'], 'degraded');
    assert.equal(health['coverage_status'], 'gaps_recorded');
  });
});
