import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { assertValidResponse } from '../support/openapi-validator.js';

const token = 'record-live-token';
const auth = { authorization: `Bearer ${token}` };
/** A shell loop that waits for `go` in cwd: the test creates it only once it saw what came before. */
const waitForGo = 'while [ ! -e go ]; do sleep 0.05; done';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

interface Effect {
  path: string;
  effect: string;
}

describe('provd record: git-ignored paths, live output', function () {
  const shared = useSharedDaemon({ authToken: token });
  let work = '';
  beforeEach(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-record-live-'));
  });
  afterEach(function () {
    rmSync(work, { recursive: true, force: true });
  });

  const record = (body: Record<string, unknown>, headers: Record<string, string> = auth) =>
    request(shared.daemon.url, '/v1/record', { method: 'POST', headers, body: JSON.stringify(body) });

  it('skips what .gitignore ignores (nested files, negations, .git) and says so; tracked and kept files are found', async function () {
    git(work, 'init', '-q');
    writeFileSync(join(work, '.gitignore'), 'big/\n*.log\n!keep.log\n');
    mkdirSync(join(work, 'big'));
    for (let i = 0; i < 300; i++) writeFileSync(join(work, 'big', `f${i}`), `${i}\n`);
    mkdirSync(join(work, 'sub/gen'), { recursive: true });
    writeFileSync(join(work, 'sub/.gitignore'), 'gen/\n');
    writeFileSync(join(work, 'sub/gen/old'), 'x\n');
    writeFileSync(join(work, 'tracked.txt'), 'before\n');
    git(work, 'add', '.gitignore', 'sub/.gitignore', 'tracked.txt');
    const script =
      'echo after > tracked.txt; echo more > big/f1; echo new > big/new; echo l > a.log; echo k > keep.log; ' +
      'echo g > sub/gen/new; rm sub/gen/old; git add tracked.txt';
    const { status, body } = await record({ command: 'sh', args: ['-c', script], cwd: work });
    assert.equal(status, 200, JSON.stringify(body));
    const effects = (body['file_effects'] as Effect[]).map(({ path, effect }) => `${effect} ${path}`);
    // .git/index changed by `git add`: never an effect, nor anything git ignores
    assert.deepEqual(effects, ['created keep.log', 'modified tracked.txt']);
    assert.equal(body['file_effects_complete'], true);
    const ignore = body['file_effects_ignore'] as Record<string, unknown>;
    assert.equal(ignore['source'], 'git');
    assert.equal(ignore['reason'], null);
    // big/, sub/gen/, a.log (after) and .git: each counted once, their contents not walked
    assert.equal(ignore['skipped'], 4);
  });

  it('shows a change of ignore rules as an effect, without reporting what it hid as deleted', async function () {
    git(work, 'init', '-q');
    writeFileSync(join(work, '.gitignore'), 'ignored/\n');
    writeFileSync(join(work, 'a.log'), 'a\n');
    mkdirSync(join(work, 'sub'));
    // the command hides *.log, then writes what a rule of sub/ would hide, rule file included
    const script =
      "echo '*.log' >> .gitignore; echo changed > a.log; echo '*' > sub/.gitignore; echo s > sub/x";
    const { body } = await record({ command: 'sh', args: ['-c', script], cwd: work });
    const effects = (body['file_effects'] as Effect[]).map(({ path, effect }) => `${effect} ${path}`);
    assert.deepEqual(effects, ['modified .gitignore', 'created sub/.gitignore']);
    // a cwd git itself ignores: nothing is skipped, and the record says why
    mkdirSync(join(work, 'ignored/deep'), { recursive: true });
    const inside = await record({
      command: 'sh',
      args: ['-c', 'echo x > f.log'],
      cwd: join(work, 'ignored/deep'),
    });
    assert.deepEqual(
      (inside.body['file_effects'] as Effect[]).map(({ path }) => path),
      ['f.log'],
    );
    const ignore = inside.body['file_effects_ignore'] as Record<string, unknown>;
    assert.equal(ignore['source'], 'none');
    assert.match(String(ignore['reason']), /ignored by git/);
  });

  it('never lets a hostile .git/config run a program (core.fsmonitor)', async function () {
    git(work, 'init', '-q');
    writeFileSync(join(work, 'tracked.txt'), 'x\n');
    git(work, 'add', 'tracked.txt');
    const marker = join(work, '..', `${work.split('/').pop()}-marker`);
    const hook = join(work, 'hook.sh');
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(hook, 0o755);
    git(work, 'config', 'core.fsmonitor', hook);
    try {
      // the trap is real: git as anyone would run it runs the hook
      git(work, 'ls-files', '-o', '-i', '--exclude-standard', '--directory');
      assert.equal(existsSync(marker), true, 'plain git ran the fsmonitor hook');
      rmSync(marker);
      const { body } = await record({ command: 'sh', args: ['-c', 'echo y > tracked.txt'], cwd: work });
      assert.equal((body['file_effects_ignore'] as Record<string, unknown>)['source'], 'git');
      assert.deepEqual(
        (body['file_effects'] as Effect[]).map(({ path }) => path),
        ['tracked.txt'],
      );
      assert.equal(existsSync(marker), false, 'the daemon ran the repository’s fsmonitor hook');
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it('skips nothing outside a git work tree, and says why', async function () {
    writeFileSync(join(work, '.gitignore'), '*.log\n');
    const { body } = await record({ command: 'sh', args: ['-c', 'echo l > a.log'], cwd: work });
    assert.deepEqual(
      (body['file_effects'] as Effect[]).map(({ path }) => path),
      ['a.log'],
    );
    assert.deepEqual(body['file_effects_ignore'], {
      source: 'none',
      skipped: 0,
      reason: 'cwd is not in a git work tree',
    });
  });

  it('prints the output live, before the command ends, and exits with its code', async function () {
    const child = spawn(
      process.execPath,
      [
        cliPath,
        'record',
        '--timeout-ms',
        '30000',
        '--',
        'sh',
        '-c',
        `echo first; echo warn >&2; ${waitForGo}; echo second; exit 7`,
      ],
      { cwd: work, env: { ...process.env, PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const sawFirst = new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        stdout += text;
        if (stdout.includes('first\n')) resolve();
      });
    });
    await sawFirst; // the command is still waiting for `go`: it cannot have ended
    assert.equal(existsSync(join(work, 'go')), false);
    writeFileSync(join(work, 'go'), '');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 7, stderr);
    assert.equal(stdout, 'first\nsecond\n');
    assert.match(
      stderr,
      /^warn\nprovd: recorded tool call tc_\S+ of run run_\S+: failed, exit 7, 1 file effect \(/,
    );
  });

  it('answers NDJSON lines then the record to Accept: application/x-ndjson; refusals stay JSON', async function () {
    const headers = { ...auth, 'content-type': 'application/json', accept: 'application/x-ndjson' };
    const body = JSON.stringify({
      command: 'sh',
      args: ['-c', 'printf "a\\n"; printf "é" >&2; exit 3'],
      cwd: work,
    });
    const response = await fetch(`${shared.daemon.url}/v1/record`, { method: 'POST', headers, body });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = lines.pop()!;
    assert.deepEqual(
      lines.sort((a, b) => String(a['stream']).localeCompare(String(b['stream']))),
      [
        { stream: 'stderr', data: 'é' },
        { stream: 'stdout', data: 'a\n' },
      ],
    );
    const stored = last['record'] as Record<string, unknown>;
    // the streamed record is the JSON answer's body, as the document gives it
    assertValidResponse({ method: 'POST', path: '/v1/record', status: 200, body: stored });
    assert.deepEqual(Object.keys(last).sort(), ['live_output_dropped_bytes', 'record']);
    assert.equal(stored['exit_code'], 3);
    assert.equal((stored['stdout'] as Record<string, unknown>)['text'], 'a\n');
    assert.equal(last['live_output_dropped_bytes'], 0);
    // refused before anything runs: the usual JSON error, status and all
    const bad = await fetch(`${shared.daemon.url}/v1/record`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ command: 42, cwd: work }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_argument');
    const wrongToken = await fetch(`${shared.daemon.url}/v1/record`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer wrong' },
      body,
    });
    assert.equal(wrongToken.status, 401);
  });

  it('records the command to its end when the client leaves mid-way', async function () {
    const headers = { ...auth, 'content-type': 'application/json', accept: 'application/x-ndjson' };
    const ids = { run_id: 'run-leave', tool_call_id: 'tc-leave' };
    const body = JSON.stringify({
      ...ids,
      command: 'sh',
      args: ['-c', `echo first; ${waitForGo}; echo done > out`],
      cwd: work,
    });
    const controller = new AbortController();
    const response = await fetch(`${shared.daemon.url}/v1/record`, {
      method: 'POST',
      headers,
      body,
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.match(Buffer.from(first.value ?? []).toString('utf8'), /"data":"first\\n"/);
    controller.abort();
    writeFileSync(join(work, 'go'), '');
    await eventually(
      'the command to end',
      () => existsSync(join(work, 'out')),
      (done) => done,
    );
    // stored once it ended: the same ids are then refused as held by the run, not as being recorded
    const again = await eventually(
      'the record to be stored',
      () => record({ ...ids, command: 'true', execute: false, cwd: work }),
      (answer) => !/being recorded/.test(JSON.stringify(answer.body)),
    );
    assert.equal(again.status, 409);
    assert.match(JSON.stringify(again.body), /already holds tool call/);
  });

  it('drops and counts the live output a client does not read, never queueing it without bound', async function () {
    const headers = { ...auth, 'content-type': 'application/json', accept: 'application/x-ndjson' };
    const total = 32 * 1024 * 1024;
    const script = `yes | head -c ${total}; touch printed; ${waitForGo}`;
    const body = JSON.stringify({ command: 'sh', args: ['-c', script], cwd: work });
    const response = await fetch(`${shared.daemon.url}/v1/record`, { method: 'POST', headers, body });
    // nothing is read until the command has printed everything
    await eventually(
      'the output to be printed',
      () => existsSync(join(work, 'printed')),
      (done) => done,
    );
    writeFileSync(join(work, 'go'), '');
    const lines = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = lines.pop()!;
    const received = lines.reduce((sum, line) => sum + String(line['data']).length, 0);
    const dropped = last['live_output_dropped_bytes'] as number;
    assert.ok(dropped > 0, `dropped ${dropped}`);
    assert.equal(received + dropped, total);
    const stdout = (last['record'] as Record<string, Record<string, unknown>>)['stdout']!;
    assert.deepEqual([stdout['size'], stdout['truncated']], [total, true]);
  });

  it('says file effects are incomplete instead of a count when the snapshot hit its bound', async function () {
    mkdirSync(join(work, 'many'));
    for (let i = 0; i <= 20_000; i++) writeFileSync(join(work, 'many', String(i)), '');
    const ran = await runCli(['record', '--', 'true'], {
      env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
      cwd: work,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /completed, exit 0, file effects incomplete \(0 found\): more than 20000 files under cwd; not compared: many from "9999" on \(/,
    );
    assert.doesNotMatch(ran.stderr, /0 file effects/);
  });
});
