import assert from 'node:assert/strict';
import type { DaemonHealth } from '../../../src/daemon/daemon-health.js';
import { formatHealth } from '../../../src/cli/render/health-text.js';
import { styleOf } from '../../../src/cli/output/style.js';

// a pipe: no colour, no width
const plain = styleOf({ isTTY: false });

/** A degraded daemon whose sensor lost a probe and dropped records, as /v1/health reports it. */
function degradedBySensor(): DaemonHealth {
  const probe = { required: false, ring_full: 0, truncated: 0, pending_full: 0, missed: 0, filtered: 0 };
  return {
    schema_version: 'provenance.daemon_health/v1',
    status: 'degraded',
    ready: true,
    coverage_status: 'gaps_recorded',
    checks: {
      database: { status: 'ok', latency_ms: 3.1 },
      schema: { status: 'ok', format_version: 13, supported_format_version: 13, missing_tables: [] },
      coverage: { status: 'gaps_recorded', recorded_gaps: 3 },
      record_cgroup: { status: 'unavailable', message: 'cgroup v2 is not mounted at /sys/fs/cgroup' },
    },
    queued_spool: 12,
    queued_spool_bytes: 4096,
    native_capture: {
      status: 'degraded',
      message: 'a required probe did not attach',
      probes: {
        exec: { ...probe, attached: true, required: true, ring_full: 40 },
        tls: { ...probe, attached: false, error: 'no uprobe target found' },
      },
      capture: { mode: 'all', bound: 0, refused: 0 },
      records: 1000,
      dropped: { handoff: 0, backpressure: 7, commit_failed: 0, malformed: 0 },
      tls: { targets: [], reassembly: null },
    },
  };
}

describe('provd health text', function () {
  it('lists every reason a degraded daemon gives: gaps, the sensor, its drops and its probes', function () {
    const lines = formatHealth(degradedBySensor(), plain).split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      'health: degraded (ready)',
      'why:',
      '  - 3 coverage gaps recorded: capture was lost (see GET /v1/telemetry/producer-health for which kinds and runs)',
      '  - sensor degraded: a required probe did not attach',
      '  - sensor dropped 7 events (backpressure)',
      '  - probe exec: 40 ring_full',
      '  - probe tls (optional) not attached: no uprobe target found',
    ]);
    // an optional capability that is off is reported with its reason, but is not a reason
    assert.ok(
      lines.includes('  record_cgroup  unavailable    cgroup v2 is not mounted at /sys/fs/cgroup'),
      lines.join('\n'),
    );
    assert.equal(lines.at(-2), 'spool: 12 events, 4096 bytes waiting for a binding');
  });

  it('gives no why for a daemon that is ok with its sensor turned off', function () {
    const health = degradedBySensor();
    health.status = 'ok';
    health.coverage_status = 'no_recorded_gaps';
    health.checks['coverage'] = { status: 'ok', recorded_gaps: 0 };
    health.native_capture = {
      status: 'off',
      message: 'turned off with --no-sensor',
      probes: {},
      dropped: {},
    };
    const text = formatHealth(health, plain);
    assert.match(text, /^health: ok \(ready\)\nchecks:\n/);
    assert.doesNotMatch(text, /why:/);
  });
});
