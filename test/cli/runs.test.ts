import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

describe('provd runs', function () {
  const fixture = useDaemonFixture();

  it('says no run is known yet on an empty store, and exits 0', async function () {
    const daemon = await fixture.start();
    const { code, stdout } = await runCli(['runs', '--url', daemon.url]);
    assert.equal(code, 0);
    assert.match(stdout, /^no runs are known yet/);
  });

  it('prints the runs newest first as a table with their bindings and events', async function () {
    const daemon = await fixture.start();
    await bind(daemon.url, { run_id: 'run-old', tool_call_id: 'tc-1', cgroup_id: 'cg-old' });
    await bind(daemon.url, { run_id: 'run-old', tool_call_id: 'tc-2', cgroup_id: 'cg-old2' });
    await bind(daemon.url, { run_id: 'run-new', tool_call_id: 'tc-1', cgroup_id: 'cg-new' });
    await ingest(daemon.url, [1, 2, 3].map(() => nativeLine({ cgroup_id: 'cg-old' })).join('\n'), 'native');
    const { code, stdout, stderr } = await runCli(['runs'], { env: { PROVD_URL: daemon.url } });
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '', 'one page holds every run: no cursor to follow');
    const [header, first, second, ...rest] = stdout.trimEnd().split('\n');
    assert.deepEqual(rest, []);
    assert.match(
      header!,
      /^RUN +FIRST SEEN +BINDINGS +TOOL CALLS +DENIED +EVENTS +KERNEL +RISKY +EVENTS FROM +EVENTS TO$/,
    );
    assert.match(first!, /^run-new +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +1 +1 +0 +0 +0 +0 +- +-$/);
    assert.match(second!, /^run-old +\S+ +2 +2 +0 +3 +3 +0 +2026-01-01T00:00:00Z +2026-01-01T00:00:10Z$/);
  });

  it("counts an agent session's tool calls, and those the gate denied, though nothing bound them", async function () {
    const daemon = await fixture.start();
    const pre = (id: string, command: string): Record<string, unknown> => ({
      session_id: 'sess-runs',
      hook_event_name: 'PreToolUse',
      cwd: '/tmp',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: id,
    });
    for (const payload of [pre('toolu_1', 'ls'), pre('toolu_2', 'cat /etc/shadow > stolen.txt')]) {
      const answer = await request(daemon.url, '/v1/hooks/claude', {
        method: 'POST',
        body: JSON.stringify(payload),
      });
      assert.equal(answer.status, 200);
    }
    const { code, stdout, stderr } = await runCli(['runs', '--url', daemon.url]);
    assert.equal(code, 0, stderr);
    // bindings 0, tool calls 2, denied 1, no events
    assert.match(stdout.split('\n')[1]!, /^sess-runs +\S+ +0 +2 +1 +0 +0 +0 +- +-$/);
    const json = await runCli(['runs', '--url', daemon.url, '--json']);
    const run = (JSON.parse(json.stdout) as { runs: Record<string, unknown>[] }).runs[0]!;
    assert.deepEqual(run['tool_calls'], { count: 2, denied: 1 });
  });

  it('prints the provenance.runs/v1 body with --json, and pages with --limit and --cursor', async function () {
    const daemon = await fixture.start();
    for (const run of ['r1', 'r2', 'r3']) await bind(daemon.url, { run_id: run, tool_call_id: 't', pid: 7 });
    const first = await runCli(['runs', '--url', daemon.url, '--json', '--limit', '2']);
    assert.equal(first.code, 0, first.stderr);
    const page = JSON.parse(first.stdout) as Record<string, unknown>;
    assert.equal(page['schema_version'], 'provenance.runs/v1');
    assert.deepEqual(
      (page['runs'] as Record<string, unknown>[]).map((run) => run['run_id']),
      ['r3', 'r2'],
    );
    const cursor = page['next_cursor'] as string;
    const second = await runCli(['runs', '--url', daemon.url, '--cursor', cursor]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout.split('\n')[1]!, /^r1 /);
    // a page that is not the last says, on stderr, how to get the next one
    const table = await runCli(['runs', '--url', daemon.url, '--limit', '1']);
    assert.match(table.stderr, /^provd: more runs follow: provd runs --cursor [A-Za-z0-9_-]+\n$/);
  });

  it('exits 1 with the daemon error for a bad cursor or a wrong token', async function () {
    const daemon = await fixture.start({ authToken: 'tok' });
    const env = { PROVD_AUTH_TOKEN: 'tok' };
    const bad = await runCli(['runs', '--url', daemon.url, '--cursor', 'not-a-cursor'], { env });
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /^provd: invalid_cursor: cursor is not a token this daemon issued\n$/);
    const refused = await runCli(['runs', '--url', daemon.url], { env: { PROVD_AUTH_TOKEN: 'nope' } });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^provd: unauthorized: .*\(the token in PROVD_AUTH_TOKEN or PROVD_AUTH_TOKEN_FILE is not/,
    );
  });
});
