import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';

describe('provd health', function () {
  const fixture = useDaemonFixture();
  const dbFile = (): string => join(fixture.dataDir, 'provd.duckdb');

  /** Starts a daemon once so the store exists, stops it, and lets `change` alter the file. */
  async function prepareStore(change: string): Promise<void> {
    await assertStopsCleanly(await fixture.start());
    await withDatabase(dbFile(), (db) => db.run(change));
  }

  it('says ok and ready, then every check, and --json is the daemon body', async function () {
    const daemon = await fixture.start();
    const { code, stdout } = await runCli(['health', '--url', daemon.url]);
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'health: ok (ready)');
    assert.equal(lines[1], 'checks:', 'nothing to explain when ok');
    assert.match(stdout, /\n {2}database +ok +latency_ms [\d.]+\n/);
    assert.match(stdout, /\ncoverage: not_observed\n/);
    const json = await runCli(['health', '--url', daemon.url, '--json']);
    const direct = await request(daemon.url, '/v1/health');
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    // the latency differs from one check to the next; the rest is the same body
    for (const answer of [body, direct.body])
      delete (answer['checks'] as Record<string, Record<string, unknown>>)['database']!['latency_ms'];
    assert.deepEqual(body, direct.body);
  });

  it('says why it is degraded: the recorded coverage gaps', async function () {
    await prepareStore(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, lost_events, recorded_at_ns)
                        VALUES ('gap-1', 'run-1', 'kernel_loss', 'provd_sensor', 1, 2, 17, 3)`);
    const daemon = await fixture.start();
    const { code, stdout } = await runCli(['health', '--url', daemon.url]);
    assert.equal(code, 0, 'degraded is still ready');
    const lines = stdout.split('\n');
    assert.equal(lines[0], 'health: degraded (ready)');
    assert.equal(lines[1], 'why:');
    assert.equal(
      lines[2],
      '  - capture loss recorded: kernel_loss (1 gap, 17 events lost); GET /v1/telemetry/producer-health says where',
    );
    assert.match(
      stdout,
      /\n {2}coverage +gaps_recorded +recorded_gaps 1, truncated_records 0, tls_unparsed_messages 0\n/,
    );
  });

  it('says why it is unavailable: the failed check and its missing table; exit 1', async function () {
    await prepareStore('DROP TABLE coverage_gaps');
    const daemon = await fixture.start();
    const { code, stdout } = await runCli(['health', '--url', daemon.url]);
    assert.equal(code, 1);
    const lines = stdout.split('\n');
    assert.equal(lines[0], 'health: unavailable (not ready)');
    assert.equal(lines[1], 'why:');
    assert.match(lines[2]!, /^ {2}- check schema failed: .*coverage_gaps/);
  });
});
