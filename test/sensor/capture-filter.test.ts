import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { readRows, sql } from '../../src/store/sql.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'capture-test-token';
const auth = { authorization: `Bearer ${token}` };

/** What the store holds after the daemon stopped: opens of each path, the `filtered` counter, gap kinds. */
async function readStore(dataDir: string, paths: string[]) {
  const instance = await DuckDBInstance.create(join(dataDir, 'provd.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const opens: number[] = [];
    for (const path of paths) {
      const [row] = await readRows<{ n: bigint }>(
        connection,
        sql`SELECT count(*) AS n FROM events WHERE json_extract_string(attrs, '$.path') = ${path}`,
      );
      opens.push(Number(row!.n));
    }
    const [filtered] = await readRows<{ value: bigint | null }>(
      connection,
      sql`SELECT max(value) AS value FROM producer_counters WHERE source = 'provd_sensor' AND counter = 'filtered'`,
    );
    const gaps = await readRows<{ kind: string }>(connection, sql`SELECT DISTINCT kind FROM coverage_gaps`);
    return { opens, filtered: Number(filtered!.value ?? 0n), gaps: gaps.map((gap) => gap.kind) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Opens `outside` from a process nothing binds, then `inside` from a recorded command. */
async function openBoth(daemon: RunningDaemon, outside: string, inside: string, run: string) {
  assert.equal(spawnSync('cat', [outside]).status, 0);
  const recorded = await request(daemon.url, '/v1/record', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ run_id: run, tool_call_id: `${run}-tc`, command: 'cat', args: [inside] }),
  });
  assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  const { body } = await request(daemon.url, '/v1/health');
  return body['native_capture'] as {
    capture: { mode: string; bound: number; leaves_out: string | null };
    probes: Record<string, { filtered: number }>;
  };
}

describe('the sensor capture filter (--capture)', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-capture-');
  let outside = '';
  let inside = '';
  before(function () {
    const why =
      sensorUnavailable() ?? (probeRecordCgroupRoot().status !== 'ok' ? 'no cgroup for records' : undefined);
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });
  beforeEach(function () {
    outside = join(work.path, 'outside-file');
    inside = join(work.path, 'inside-file');
    writeFileSync(outside, 'x');
    writeFileSync(inside, 'x');
  });

  it('stores only bound processes with agents, the default, and counts what it left out without a coverage gap', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token });
    const capture = await openBoth(daemon, outside, inside, 'run-agents');
    assert.equal(capture.capture.mode, 'agents');
    assert.match(capture.capture.leaves_out ?? '', /processes no binding names.*--capture host/);
    assert.ok(capture.capture.bound >= 1, JSON.stringify(capture.capture));
    assert.ok(capture.probes['file_open']!.filtered > 0, JSON.stringify(capture.probes['file_open']));
    assert.equal(await daemon.stop(), 0);
    const store = await readStore(daemon.dataDir, [outside, inside]);
    assert.deepEqual(
      store.opens.map((n) => n > 0),
      [false, true],
      JSON.stringify(store),
    );
    assert.ok(store.filtered > 0, JSON.stringify(store));
    assert.deepEqual(store.gaps, [], JSON.stringify(store));
  });

  it('stores every process with host, and filters nothing', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token, args: ['--capture', 'host'] });
    const capture = await openBoth(daemon, outside, inside, 'run-host');
    assert.equal(capture.capture.mode, 'host');
    assert.equal(capture.capture.leaves_out, null);
    assert.equal(capture.probes['file_open']!.filtered, 0);
    assert.equal(await daemon.stop(), 0);
    const store = await readStore(daemon.dataDir, [outside, inside]);
    assert.deepEqual(
      store.opens.map((n) => n > 0),
      [true, true],
      JSON.stringify(store),
    );
    assert.equal(store.filtered, 0);
  });

  it('takes bound, the old name of agents, and logs it as deprecated', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token, args: ['--capture', 'bound'] });
    const capture = await openBoth(daemon, outside, inside, 'run-bound');
    assert.equal(capture.capture.mode, 'agents');
    const warned = daemon.logs.find((line) => line['msg'] === 'deprecated --capture value');
    assert.deepEqual(
      [warned?.['given'], warned?.['means']],
      ['bound', 'agents'],
      JSON.stringify(daemon.logs.slice(0, 20)),
    );
    assert.equal(await daemon.stop(), 0);
    const store = await readStore(daemon.dataDir, [outside, inside]);
    assert.deepEqual(
      store.opens.map((n) => n > 0),
      [false, true],
      JSON.stringify(store),
    );
  });
});
