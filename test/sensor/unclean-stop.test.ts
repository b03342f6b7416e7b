/**
 * A daemon killed (SIGKILL) while its sensor runs loses what the sensor had read and not committed
 * (a batch is handed over within 1 s and its commit lingers up to 5 s): the next start records that
 * as a coverage gap, `sensor_unclean_stop`, from the last sensor event stored to that start, and a
 * clean stop leaves none. It starts the sensor (`sensor: true`), so it runs alone; it skips, saying
 * why, without root, BTF or a cgroup for watched agents.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sensorMarkFileName } from '../../src/sensor/sensor-mark.js';
import { readRows, sql } from '../../src/store/sql.js';
import { cliPath, useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { skipWithoutWatchSensor } from '../support/watch-sensor.js';

interface GapRow {
  start_ns: bigint;
  end_ns: bigint;
  lost_events: bigint | null;
  detail: string;
}

/** The store's sensor_unclean_stop gaps, read after the daemon stopped. */
async function readGaps(dataDir: string): Promise<GapRow[]> {
  const instance = await DuckDBInstance.create(join(dataDir, 'provd.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return await readRows<GapRow>(
      connection,
      sql`SELECT start_ns, end_ns, lost_events, detail::VARCHAR AS detail FROM coverage_gaps
          WHERE kind = 'sensor_unclean_stop' ORDER BY start_ns`,
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

describe('a daemon killed while its sensor runs', function () {
  this.timeout(180_000);
  const fixture = useDaemonFixture();
  before(skipWithoutWatchSensor);

  it('leaves a coverage gap at the next start, from its last stored event to that start', async function () {
    const first = await fixture.start({ sensor: true });
    assert.ok(existsSync(join(fixture.dataDir, sensorMarkFileName)), 'a running sensor marks the data dir');
    // a watched loop, so the sensor reads records that wait for a shared commit when the kill comes
    const loop = 'while :; do /bin/true; sleep 0.05; done';
    const watch = spawn(
      process.execPath,
      [cliPath, 'watch', '--url', first.url, '--run', 'run-killed', '--', 'sh', '-c', loop],
      {
        stdio: 'ignore',
        detached: true, // its own process group: the loop is ended with it
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const killedNs = nowNs();
    assert.equal(await first.stop('SIGKILL'), null, 'the daemon was killed');
    process.kill(-watch.pid!, 'SIGKILL');
    await once(watch, 'exit');

    const second = await fixture.start({ sensor: true });
    const health = await request(second.url, '/v1/health');
    assert.deepEqual(
      [health.body['status'], health.body['coverage_status']],
      ['degraded', 'gaps_recorded'],
      JSON.stringify(health.body),
    );
    const producers = await request(second.url, '/v1/telemetry/producer-health');
    const gaps = producers.body['coverage_gaps'] as Record<string, { gaps: number }>;
    const sources = producers.body['sources'] as Record<string, Record<string, number>>;
    assert.deepEqual(
      [gaps['sensor_unclean_stop']?.gaps, sources['provd_sensor']?.['unclean_stops']],
      [1, 1],
      JSON.stringify(producers.body),
    );
    assert.equal(
      second.logs.filter((line) => String(line['msg']).startsWith('the daemon before was killed')).length,
      1,
    );
    assert.equal(await second.stop(), 0, 'the second daemon stops cleanly');
    assert.ok(!existsSync(join(fixture.dataDir, sensorMarkFileName)), 'a clean stop removes the mark');

    // a clean stop leaves no gap: a third start records nothing new
    const third = await fixture.start({ sensor: true });
    assert.equal(await third.stop(), 0);
    const [gap, ...more] = await readGaps(fixture.dataDir);
    assert.ok(gap, 'the kill left a gap');
    assert.equal(more.length, 0, 'one gap for one kill, none for a clean stop');
    assert.ok(gap.start_ns <= killedNs && killedNs <= gap.end_ns, `the kill at ${killedNs} is in the gap`);
    assert.equal(gap.lost_events, null, 'how many records were lost is not known');
    assert.equal((JSON.parse(gap.detail) as { pid: number }).pid, first.child.pid);
  });
});
