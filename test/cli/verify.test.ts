import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

describe('provd verify on a tampered store', function () {
  const fixture = useDaemonFixture();

  it('says failed first, lists each issue under its columns, and exits 1', async function () {
    const first = await fixture.start();
    await bind(first.url, { run_id: 'run-t', tool_call_id: 'tc-t', cgroup_id: '777' });
    const lines = [1, 2, 3].map((second) => nativeLine({ timestamp: `2026-01-01T00:00:0${second}Z` }));
    assert.equal((await ingest(first.url, lines.join('\n'), 'native')).status, 200);
    const before = await runCli(['verify', 'run-t', '--url', first.url]);
    assert.equal(before.code, 0, before.stdout + before.stderr);
    await assertStopsCleanly(first);
    // an event rewritten behind the daemon's back: its stored hash no longer matches
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      db.run(`UPDATE events SET comm = 'forged' WHERE seq = 1`),
    );
    const daemon = await fixture.start();
    const { code, stdout, stderr } = await runCli(['verify', 'run-t', '--url', daemon.url]);
    assert.equal(code, 1, stderr);
    const [verdict, blank, header, ...issues] = stdout.trimEnd().split('\n');
    assert.match(verdict!, /^verify run-t: failed \((\d+) issues?: (\d+) errors?, 0 warnings\)$/);
    assert.equal(blank, '');
    assert.match(header!, /^SEVERITY +KIND +ID +MESSAGE$/);
    assert.ok(issues.length > 0);
    for (const issue of issues) {
      assert.match(issue, /^error +\S+ +\S+ +\S/);
      assert.equal(issue.indexOf(issue.split(/ +/)[1]!), header!.indexOf('KIND'), 'kinds line up under KIND');
    }
    const body = (await request(daemon.url, '/v1/graph/verify?run=run-t')).body;
    assert.equal(issues.length, (body['issues'] as unknown[]).length);
    assert.equal(Number(/(\d+) errors?/.exec(verdict!)![1]), body['error_count']);
    const json = await runCli(['verify', 'run-t', '--json', '--url', daemon.url]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), body);
  });
});
