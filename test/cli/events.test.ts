import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

// an ANSI escape sequence (CSI)
const ansiEscape = new RegExp(String.fromCharCode(27) + '\\[');

/** `provd events ARGS --follow` as a child: what it printed so far, and a way to interrupt it. */
function follow(args: readonly string[]) {
  const { PROVD_AUTH_TOKEN: _token, NO_COLOR: _noColor, ...env } = process.env;
  const child = spawn(process.execPath, [cliPath, 'events', ...args, '--follow'], { env, timeout: 45_000 });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out.stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (out.stderr += text));
  const closed = once(child, 'close') as Promise<[number | null]>;
  return {
    out,
    async interrupt(): Promise<number | null> {
      child.kill('SIGINT');
      return (await closed)[0];
    },
  };
}

describe('provd events', function () {
  const shared = useSharedDaemon();
  const url = () => shared.daemon.url;

  before(async function () {
    await bind(url(), {
      run_id: 'run-ev',
      tool_call_id: 'tc-1',
      cgroup_id: '501',
      started_at: '2026-01-01T00:00:00Z',
    });
    const lines = [
      nativeLine({
        cgroup_id: '501',
        argv: ['curl', 'https://example.com/'],
        comm: 'curl',
        pid: 11,
        tgid: 11,
      }),
      nativeLine({
        cgroup_id: '501',
        event_type: 'file_write',
        path: '/tmp/out.txt',
        timestamp: '2026-01-01T00:00:02.5Z',
      }),
    ];
    assert.equal((await ingest(url(), lines.join('\n'), 'native')).body['accepted'], 2);
  });

  it('prints one line an event under aligned headers, filtered by --type', async function () {
    const { code, stdout, stderr } = await runCli(['events', 'run-ev', '--url', url()]);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stdout, ansiEscape);
    const [header, exec, write, ...rest] = stdout.trimEnd().split('\n');
    assert.deepEqual(rest, []);
    assert.match(header!, /^TIME \(UTC\) +TYPE +PROCESS +TOOL CALL +EVIDENCE +DETAIL$/);
    assert.match(
      exec!,
      /^2026-01-01 00:00:01\.000 +execve +curl\[11\] +tc-1 +kernel_correlated +curl https:\/\/example\.com\/$/,
    );
    assert.match(
      write!,
      /^2026-01-01 00:00:02\.500 +file_write +sh\[4242\] +tc-1 +kernel_correlated +\/tmp\/out\.txt$/,
    );
    assert.equal(write!.indexOf('/tmp'), header!.indexOf('DETAIL'));

    const writes = await runCli(['events', 'run-ev', '--type', 'file_write', '--url', url()]);
    assert.equal(writes.stdout.trimEnd().split('\n').length, 2);
    assert.match(writes.stdout, /file_write/);
    assert.doesNotMatch(writes.stdout, /execve/);
    const bad = await runCli(['events', 'run-ev', '--type', 'nonsense', '--url', url()]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^provd: invalid_argument: type must be one of /);
  });

  it('names the next page with its type filter, since a cursor is bound to it', async function () {
    await bind(url(), {
      run_id: 'run-pages',
      tool_call_id: 'tc-p',
      cgroup_id: '504',
      started_at: '2026-01-01T00:00:00Z',
    });
    const lines = ['a', 'b', 'c'].map((name) => nativeLine({ cgroup_id: '504', argv: [name] }));
    lines.push(nativeLine({ cgroup_id: '504', event_type: 'file_write', path: '/tmp/p' }));
    assert.equal((await ingest(url(), lines.join('\n'), 'native')).body['accepted'], 4);
    const first = await runCli(['events', 'run-pages', '--type', 'execve', '--limit', '2', '--url', url()]);
    assert.match(
      first.stderr,
      /^provd: more events follow: provd events run-pages --type execve --cursor [\w-]+\n$/,
    );
    const cursor = first.stderr.trim().split(' ').at(-1)!;
    const next = await runCli([
      'events',
      'run-pages',
      '--type',
      'execve',
      '--cursor',
      cursor,
      '--url',
      url(),
    ]);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.stderr, '', 'the last page names no cursor');
    assert.deepEqual(
      next.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/ {2,}/).at(-1)),
      ['c'],
    );
  });

  it('prints the daemon body with --json, and refuses --limit with --follow', async function () {
    const { code, stdout } = await runCli(['events', 'run-ev', '--json', '--limit', '1', '--url', url()]);
    assert.equal(code, 0);
    const page = JSON.parse(stdout) as Record<string, unknown>;
    const direct = await request(url(), '/v1/telemetry/events?run=run-ev&limit=1');
    assert.deepEqual(page, direct.body);
    const refused = await runCli(['events', 'run-ev', '--follow', '--limit', '5', '--url', url()]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^provd: PROVD_ERR_CONFIG_INVALID: --limit pages a listing/);
  });

  it('gives a resume_cursor on the last page that yields only events stored after it', async function () {
    const last = await request(url(), '/v1/telemetry/events?run=run-ev');
    assert.equal(last.body['next_cursor'], null);
    const resume = last.body['resume_cursor'] as string;
    assert.match(resume, /^[A-Za-z0-9_-]+$/);
    const nothingNew = await request(url(), `/v1/telemetry/events?run=run-ev&cursor=${resume}`);
    assert.equal(nothingNew.body['count'], 0);
    assert.equal(nothingNew.body['resume_cursor'], resume, 'an empty page resumes where it was asked');
    const other = await request(url(), `/v1/telemetry/events?run=run-ev&type=execve&cursor=${resume}`);
    assert.equal(other.status, 400, 'the cursor stays bound to its run and filters');
    assert.equal((other.body['error'] as Record<string, unknown>)['code'], 'invalid_cursor');
  });

  it('follows: prints the run so far, then each event stored later once, earlier capture times included; SIGINT exits 0', async function () {
    await bind(url(), {
      run_id: 'run-follow',
      tool_call_id: 'tc-f',
      cgroup_id: '502',
      started_at: '2025-12-31T00:00:00Z',
    });
    await ingest(url(), nativeLine({ cgroup_id: '502', path: '/bin/first', argv: ['first'] }), 'native');
    const human = follow(['run-follow', '--url', url()]);
    const json = follow(['run-follow', '--url', url(), '--json']);
    await eventually(
      'both followers print the first event',
      () => [human.out.stdout, json.out.stdout],
      (outs) => outs.every((out) => out.includes('first')),
    );
    // stored later, captured earlier than the first: a keyset on capture time would skip it
    const late = nativeLine({
      cgroup_id: '502',
      path: '/bin/late',
      argv: ['late-comer'],
      timestamp: '2025-12-31T23:59:00Z',
    });
    assert.equal((await ingest(url(), late, 'native')).body['accepted'], 1);
    await eventually(
      'both followers print the late event',
      () => [human.out.stdout, json.out.stdout],
      (outs) => outs.every((out) => out.includes('late-comer')),
    );
    assert.equal(await human.interrupt(), 0);
    assert.equal(await json.interrupt(), 0);

    const lines = human.out.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^TIME \(UTC\) +TYPE +PROCESS +TOOL CALL +EVIDENCE +DETAIL$/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/ {2,}/).at(-1)),
      ['first', 'late-comer'],
      'each event once, in the order stored',
    );
    assert.match(lines[2]!, /^2025-12-31 23:59:00\.000 +execve/);
    const events = json.out.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      events.map((event) => (event['attrs'] as { argv: string[] }).argv[0]),
      ['first', 'late-comer'],
    );
    assert.deepEqual(
      events.map((event) => event['run_id']),
      ['run-follow', 'run-follow'],
    );
    assert.equal(human.out.stderr, '');
  });

  it('follows an unknown run no further than its first answer: exit 1', async function () {
    const { code, stderr } = await runCli(['events', 'no-such-run', '--follow', '--url', url()]);
    assert.equal(code, 1);
    assert.equal(stderr, 'provd: run_not_found: no run "no-such-run" is known\n');
  });

  it('shows control characters in evidence as escapes, so an argv cannot drive the terminal or forge a row', async function () {
    await bind(url(), {
      run_id: 'run-esc',
      tool_call_id: 'tc-e',
      cgroup_id: '503',
      started_at: '2026-01-01T00:00:00Z',
    });
    const argv = ['printf', '\u001b[2J\u001b]0;owned\u0007', 'two\nlines', '\u202eevil'];
    await ingest(url(), nativeLine({ cgroup_id: '503', argv }), 'native');
    const human = await runCli(['events', 'run-esc', '--url', url()]);
    assert.equal(human.code, 0, human.stderr);
    assert.doesNotMatch(
      human.stdout,
      // eslint-disable-next-line no-control-regex -- the control characters are what must not be there
      /[\u0000-\u0009\u000b-\u001f\u202e]/u,
      'no control character but the line ends',
    );
    const lines = human.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, 'one row for the one event');
    assert.ok(lines[1]!.endsWith('printf \\x1b[2J\\x1b]0;owned\\x07 two\\x0alines \\u202eevil'), lines[1]);
    const json = await runCli(['events', 'run-esc', '--json', '--url', url()]);
    const page = JSON.parse(json.stdout) as { events: { attrs: { argv: string[] } }[] };
    assert.deepEqual(page.events[0]!.attrs.argv, argv, '--json keeps the evidence as stored');
  });
});
