import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../support/cli.js';
import { removeDir, startDaemon, type RunningDaemon } from '../../support/daemon.js';
import { queryRows, withDatabase } from '../../support/duckdb.js';
import { request } from '../../support/http.js';
import { ingest, nativeLine, pageAll } from '../../support/telemetry.js';
import { useTempDir } from '../../support/temp-dir.js';
import { seedRun } from './export-support.js';

/** Each host's runs and how many events each gets, and how many events no run claims. */
const hosts = [
  { name: 'host-a', runs: { 'run-1': 12, 'run-2': 7 }, unclaimed: 3 },
  { name: 'host-b', runs: { 'run-1': 5, 'run-3': 20 }, unclaimed: 0 },
  { name: 'host-c', runs: { 'run-4': 9 }, unclaimed: 4 },
] as const;

/** `host|run|type` → count, as one key per group. */
type Counts = Map<string, number>;

describe('exports of a fleet read together as Hive-partitioned Parquet', function () {
  const work = useTempDir('provd-fleet-', { per: 'suite' });
  const daemons: RunningDaemon[] = [];

  before(async function () {
    for (const host of hosts) {
      const daemon = await startDaemon({ args: ['--host-name', host.name] });
      daemons.push(daemon);
      let cgroup = 900;
      for (const [run, count] of Object.entries(host.runs))
        await seedRun(daemon.url, run, String(cgroup++), count);
      if (host.unclaimed > 0) {
        const lines = Array.from({ length: host.unclaimed }, (_, i) =>
          nativeLine({
            cgroup_id: '555',
            pid: 7000 + i,
            tgid: 7000 + i,
            timestamp: `2026-01-01T00:01:0${i}Z`,
          }),
        );
        assert.equal((await ingest(daemon.url, lines.join('\n') + '\n', 'native')).status, 200);
      }
    }
  });

  after(async function () {
    for (const daemon of daemons.splice(0)) {
      await daemon.stop();
      removeDir(daemon.dataDir);
    }
  });

  it('counts events per host, run and type as each daemon answers them', async function () {
    const runsDir = join(work.path, 'runs');
    const expected: Counts = new Map();
    for (const [i, host] of hosts.entries()) {
      const daemon = daemons[i]!;
      for (const run of Object.keys(host.runs)) {
        const exported = await runCli(['export', run, '--out', runsDir, '--url', daemon.url]);
        assert.equal(exported.code, 0, exported.stderr);
        // the daemon's own answers: the summary's counts by type, and every page of the events
        const summary = await request(daemon.url, `/v1/observe/summary?run=${run}`);
        const byType = (summary.body['events'] as { by_type: Record<string, number> }).by_type;
        const paged = await pageAll(daemon.url, `run=${run}`);
        assert.equal(paged.length, host.runs[run as keyof typeof host.runs]);
        for (const [type, count] of Object.entries(byType)) {
          expected.set(`${host.name}|${run}|${type}`, count);
          assert.equal(paged.filter((event) => event['type'] === type).length, count);
        }
      }
    }
    const fleet = await countsOf(join(runsDir, '**', 'events.parquet'));
    assert.deepEqual(fleet, expected);
    // each host's bundles under that host's own key, as a fleet pins them
    let lines = 0;
    for (const [i, host] of hosts.entries()) {
      const served = await request(daemons[i]!.url, '/v1/graph/keys');
      const key = join(work.path, `${host.name}.pub`);
      writeFileSync(key, (served.body['keys'] as { public_key_pem: string }[])[0]!.public_key_pem);
      const verified = await runCli(['verify', '--bundle', join(runsDir, `host=${host.name}`), '--key', key]);
      assert.equal(verified.code, 0, verified.stdout);
      lines += verified.stdout.trim().split('\n').length;
      // the previous host's key signed none of them
      if (i > 0) {
        const other = join(work.path, `${hosts[i - 1]!.name}.pub`);
        const crossed = await runCli([
          'verify',
          '--bundle',
          join(runsDir, `host=${host.name}`),
          '--key',
          other,
        ]);
        assert.equal(crossed.code, 1, crossed.stdout);
      }
    }
    assert.equal(lines, 5);
  });

  it('counts a range of every host, run=_none holding the events no run claimed', async function () {
    const rangeDir = join(work.path, 'range');
    for (const daemon of daemons) {
      const args = ['export', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z'];
      const exported = await runCli([...args, '--out', rangeDir, '--url', daemon.url]);
      assert.equal(exported.code, 0, exported.stderr);
    }
    const rows = await withDatabase(':memory:', (connection) =>
      queryRows(
        connection,
        `SELECT host, run, count(*)::INTEGER AS n FROM read_parquet('${join(rangeDir, '**', 'events.parquet')}',
           hive_partitioning = true) GROUP BY host, run ORDER BY host, run`,
      ),
    );
    const expected = hosts.flatMap((host) => [
      ...(host.unclaimed > 0 ? [{ host: host.name, run: '_none', n: host.unclaimed }] : []),
      ...Object.entries(host.runs).map(([run, n]) => ({ host: host.name, run, n })),
    ]);
    assert.deepEqual(rows, expected);
  });
});

/** Events per host, run and type over the files `glob` matches, read as Hive partitions. */
async function countsOf(glob: string): Promise<Counts> {
  const rows = await withDatabase(':memory:', (connection) =>
    queryRows(
      connection,
      `SELECT host, run_id, type_name, count(*)::INTEGER AS n
       FROM read_parquet('${glob}', hive_partitioning = true) GROUP BY ALL ORDER BY ALL`,
    ),
  );
  return new Map(
    rows.map((row) => [
      `${String(row['host'])}|${String(row['run_id'])}|${String(row['type_name'])}`,
      Number(row['n']),
    ]),
  );
}
