/**
 * A watched process that found the daemon's token cannot write over HTTP: the kernel marks its
 * connections (bpf/connect-mark.bpf.c) and the daemon refuses its writes (src/daemon/watched-callers.ts).
 * The attack runs for real: a process under `provd watch` reads the token from a file and posts a
 * bind, a forged PostToolUse and an ingest; the same requests from outside the watched tree go
 * through. These tests start the sensor (`sensor: true`), so they run alone; they skip, saying why,
 * without root, BTF or a cgroup.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { eventuallyDefined } from '../support/eventually.js';
import { request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';
import { useTempDir } from '../support/temp-dir.js';
import { skipWithoutWatchSensor } from '../support/watch-sensor.js';

const token = 'watched-writes-token';
const auth = { authorization: `Bearer ${token}` };

/** One request of the attack: what a tool call holding the token would send. */
interface Attempt {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  type?: string;
  body?: string;
  /** Sent to the daemon's address as IPv4-mapped IPv6 (`[::ffff:127.0.0.1]`): a dual-stack socket's connect. */
  mapped?: boolean;
}

/** The base URL an attempt goes to. */
const baseOf = (url: string, attempt: Attempt): string =>
  attempt.mapped === true ? url.replace('//127.0.0.1:', '//[::ffff:127.0.0.1]:') : url;

/** The attack's requests, naming runs of their own under `prefix` (so what was stored can be looked for). */
function attempts(prefix: string): Attempt[] {
  const json = 'application/json';
  const forgedPost = {
    session_id: `${prefix}-session`,
    hook_event_name: 'PostToolUse',
    cwd: '/tmp',
    tool_name: 'Bash',
    tool_input: { command: 'cat /etc/shadow > stolen.txt' },
    tool_use_id: 'toolu_denied',
    tool_response: { stdout: '', stderr: '', interrupted: false },
  };
  return [
    {
      name: 'bind',
      method: 'POST',
      path: '/v1/telemetry/bind',
      type: json,
      body: JSON.stringify({ run_id: `${prefix}-bind`, tool_call_id: 'forged', cgroup_id: '4242' }),
    },
    {
      name: 'bind_mapped',
      method: 'POST',
      path: '/v1/telemetry/bind',
      type: json,
      body: JSON.stringify({ run_id: `${prefix}-bind-mapped`, tool_call_id: 'forged', cgroup_id: '4245' }),
      mapped: true,
    },
    {
      name: 'hook',
      method: 'POST',
      path: `/v1/hooks/claude?run=${prefix}-hook`,
      type: json,
      body: JSON.stringify(forgedPost),
    },
    {
      name: 'ingest',
      method: 'POST',
      path: '/v1/telemetry/ingest?format=native',
      type: 'application/x-ndjson',
      body: nativeLine({ comm: `${prefix}-ingest` }),
    },
    {
      name: 'bind_ai_asserted',
      method: 'POST',
      path: '/v1/telemetry/bind',
      type: json,
      body: JSON.stringify({
        run_id: `${prefix}-asserted`,
        tool_call_id: 'own',
        cgroup_id: '4243',
        binding_source: 'ai_asserted',
        confidence: 0.5,
      }),
    },
    { name: 'read', method: 'GET', path: '/v1/telemetry/producer-health' },
    {
      name: 'gate',
      method: 'POST',
      path: '/v1/security/evaluate',
      type: json,
      body: JSON.stringify({ event_type: 'execve', command: 'ls' }),
    },
  ];
}

/** The attacker: reads the token from a file, sends each request, prints `{name: [status, body]}`. */
const attackScript = `
import { readFileSync } from 'node:fs';
const [url, tokenFile, attemptsFile] = process.argv.slice(2);
const token = readFileSync(tokenFile, 'utf8').trim();
const answers = {};
for (const attempt of JSON.parse(readFileSync(attemptsFile, 'utf8'))) {
  const headers = { authorization: 'Bearer ' + token };
  if (attempt.type) headers['content-type'] = attempt.type;
  const base = attempt.mapped ? url.replace('//127.0.0.1:', '//[::ffff:127.0.0.1]:') : url;
  const response = await fetch(base + attempt.path, { method: attempt.method, headers, body: attempt.body });
  answers[attempt.name] = [response.status, await response.text()];
}
console.log(JSON.stringify(answers));
`;

/** Sends `list` from this process, outside any watched tree. */
async function sendFromOutside(url: string, list: Attempt[]): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const attempt of list) {
    const headers = { ...auth, ...(attempt.type !== undefined && { 'content-type': attempt.type }) };
    const response = await fetch(baseOf(url, attempt) + attempt.path, {
      method: attempt.method,
      headers,
      ...(attempt.body !== undefined && { body: attempt.body }),
    });
    await response.text();
    statuses[attempt.name] = response.status;
  }
  return statuses;
}

/** health's watched_callers check. */
async function watchedCheck(url: string): Promise<Record<string, unknown>> {
  const { body } = await request(url, '/v1/health');
  return (body['checks'] as Record<string, Record<string, unknown>>)['watched_callers']!;
}

/** The status of asking for a run's context entries: 200 when something was stored under it, 404 when not. */
async function runStatus(url: string, run: string): Promise<number> {
  return (await request(url, `/v1/context/entries?run=${run}`, { headers: auth })).status;
}

/** Runs `command` as a watched process and answers what it printed. */
type Launch = (command: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** Runs `command` under `provd watch` (its own cgroup, bound to run `run`). */
const underWatch =
  (url: string, run: string): Launch =>
  (command) =>
    runCli(['watch', '--run', run, '--', ...command], { env: { PROVD_URL: url, PROVD_AUTH_TOKEN: token } });

/**
 * Runs `command` forked by a shell bound by its pid alone (POST /v1/telemetry/bind `pid`) before
 * the fork: no cgroup names it, and the kernel binds the child at its fork (bpf/process.bpf.c: provd_fork).
 */
const forkedUnderBoundPid =
  (url: string, run: string): Launch =>
  async (command) => {
    // dash forks each command of a list: `"$@"` runs in a child of the bound shell
    const shell = spawn('/bin/sh', ['-c', 'read go; "$@"; true', 'sh', ...command], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ran = ranToEnd(shell);
    await bindPid(url, run, shell.pid!);
    shell.stdin.end('go\n');
    return ran;
  };

/**
 * Runs `command` as a process given pid `pid` (ns_last_pid: the next fork's pid is one more), tried
 * again when another fork on the host took it first.
 */
const givenPid =
  (pid: number): Launch =>
  (command) =>
    eventuallyDefined(
      `a process given pid ${pid}`,
      async () => {
        writeFileSync('/proc/sys/kernel/ns_last_pid', String(pid - 1));
        const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
        const ran = ranToEnd(child);
        if (child.pid === pid) return ran;
        child.kill('SIGKILL');
        await ran;
        return undefined;
      },
      { everyMs: 10 },
    );

/** Binds process `pid` to run `run` over POST /v1/telemetry/bind, from outside any watched tree. */
async function bindPid(url: string, run: string, pid: number): Promise<void> {
  const bound = await request(url, '/v1/telemetry/bind', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ run_id: run, tool_call_id: 'tc', pid }),
  });
  assert.equal(bound.status, 200, JSON.stringify(bound.body));
}

/** What `child` printed and its exit code, once it ended. */
async function ranToEnd(child: ChildProcessByStdio<null | Writable, Readable, Readable>): ReturnType<Launch> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** The attack's command line: it reads the token from a file, as a model's command that found it would. */
function attackCommand(url: string, dir: string, prefix: string): string[] {
  const tokenFile = join(dir, `${prefix}-found-token`);
  writeFileSync(tokenFile, token, { mode: 0o600 });
  const attemptsFile = join(dir, `${prefix}-attempts.json`);
  writeFileSync(attemptsFile, JSON.stringify(attempts(prefix)));
  const script = join(dir, 'attack.mjs');
  writeFileSync(script, attackScript);
  return [process.execPath, script, url, tokenFile, attemptsFile];
}

/** The answers of a caller no watched tree holds: every write taken. */
const everyWriteTaken = {
  bind: 200,
  bind_mapped: 200,
  hook: 200,
  ingest: 200,
  bind_ai_asserted: 200,
  read: 200,
  gate: 200,
};

/** The attack's answers, `{name: [status, body]}`, from what it printed. */
function answersOf(stdout: string): Record<string, [number, string]> {
  const line = stdout.split('\n').find((text) => text.startsWith('{'));
  return JSON.parse(line ?? '{}') as Record<string, [number, string]>;
}

const statusesOf = (answers: Record<string, [number, string]>): Record<string, number> =>
  Object.fromEntries(Object.entries(answers).map(([name, [status]]) => [name, status]));

/**
 * Runs the attack from a watched process (`launch`), holding the token it found in a file, and
 * checks each write is refused 403 and stored nothing, while reads, the gate and an ai_asserted bind go on.
 */
async function attackIsRefused(url: string, dir: string, prefix: string, launch: Launch): Promise<void> {
  const before = await watchedCheck(url);
  assert.equal(before['status'], 'ok', JSON.stringify(before));
  const watched = await launch(attackCommand(url, dir, prefix));
  assert.equal(watched.code, 0, watched.stderr);
  const answers = answersOf(watched.stdout);
  const statuses = statusesOf(answers);
  assert.deepEqual(
    statuses,
    { bind: 403, bind_mapped: 403, hook: 403, ingest: 403, bind_ai_asserted: 200, read: 200, gate: 200 },
    watched.stdout,
  );
  for (const name of ['bind', 'bind_mapped', 'hook', 'ingest']) {
    const body = JSON.parse(answers[name]![1]) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'forbidden');
    assert.match(
      body.error.message,
      /came from a process the daemon watches .* cannot assert context about itself/,
    );
  }
  // nothing of the refused writes was stored; the ai_asserted binding was
  assert.equal(await runStatus(url, `${prefix}-bind`), 404);
  assert.equal(await runStatus(url, `${prefix}-hook`), 404);
  assert.equal(await runStatus(url, `${prefix}-bind-mapped`), 404);
  assert.equal(await runStatus(url, `${prefix}-asserted`), 200);
}

describe('writes over HTTP from a watched process', function () {
  describe('with the sensor', function () {
    this.timeout(240_000);
    const shared = useSharedDaemon({ sensor: true, authToken: token });
    const work = useTempDir('provd-watched-writes-');
    before(skipWithoutWatchSensor);

    it('refuses a bind, a forged PostToolUse and an ingest 403 with the token; reads, the gate and ai_asserted binds go on', async function () {
      const url = shared.daemon.url;
      const before = await watchedCheck(url);
      await attackIsRefused(url, work.path, 'inside', underWatch(url, 'inside-attack'));
      const after = await watchedCheck(url);
      assert.equal(after['refused_writes'], (before['refused_writes'] as number) + 4, JSON.stringify(after));
      assert.equal(after['ai_asserted_writes'], (before['ai_asserted_writes'] as number) + 1);
      // fetch keeps its connection alive: the kernel marked it once, at connect
      assert.ok(
        (after['connects_marked'] as number) > (before['connects_marked'] as number),
        JSON.stringify(after),
      );
    });

    it('takes the same writes from a process outside the watched tree', async function () {
      const url = shared.daemon.url;
      const before = await watchedCheck(url);
      const statuses = await sendFromOutside(url, attempts('outside'));
      assert.deepEqual(statuses, everyWriteTaken);
      assert.equal(await runStatus(url, 'outside-bind'), 200);
      assert.equal(await runStatus(url, 'outside-hook'), 200);
      const after = await watchedCheck(url);
      assert.equal(after['refused_writes'], before['refused_writes']);
    });

    it("takes what a watched process's AI tools write (ai_asserted), and refuses its provd record", async function () {
      const url = shared.daemon.url;
      const tokenFile = join(work.path, 'found-token-cli');
      writeFileSync(tokenFile, token, { mode: 0o600 });
      const provd = `'${process.execPath}' '${cliPath}'`;
      const bindInput = JSON.stringify({ run_id: 'inside-ai-bind', tool_call_id: 'own', cgroup_id: '4244' });
      const recordInput = JSON.stringify({ run_id: 'inside-ai-record', tool_call_id: 'own', command: 'ls' });
      const script = [
        `export PROVD_AUTH_TOKEN=$(cat '${tokenFile}')`,
        `${provd} ai call bind_scope --json --input '${bindInput}'`,
        `${provd} ai call record_tool_call --json --input '${recordInput}'`,
        `${provd} record --run inside-record -- true; echo "record exit $?"`,
      ].join('; ');
      const watched = await runCli(['watch', '--run', 'run-ai-tools', '--', 'sh', '-c', script], {
        env: { PROVD_URL: url, PROVD_AUTH_TOKEN: token },
      });
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(
        watched.stderr,
        /forbidden: POST \/v1\/record refused: the request came from a process the daemon watches/,
      );
      assert.match(watched.stdout, /^record exit [1-9]/m, watched.stdout);
      assert.equal(await runStatus(url, 'inside-ai-bind'), 200, watched.stdout);
      assert.equal(await runStatus(url, 'inside-ai-record'), 200, watched.stdout);
      assert.equal(await runStatus(url, 'inside-record'), 404);
    });

    it('refuses the connect of a watched process whose socket is bound to a port already (no mark to give it)', async function () {
      const url = shared.daemon.url;
      const before = await watchedCheck(url);
      const script = join(work.path, 'bound-socket.mjs');
      // a socket bound before connect: the kernel cannot mark it, so the connect fails EPERM
      writeFileSync(
        script,
        `import { connect } from 'node:net';
  const port = Number(new URL(process.argv[2]).port);
  const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1', localPort: 0 });
  socket.on('connect', () => { console.log('connected ' + socket.localAddress); socket.destroy(); });
  socket.on('error', (error) => console.log('refused ' + error.code));`,
      );
      const watched = await runCli(
        ['watch', '--run', 'run-bound-socket', '--', process.execPath, script, url],
        {
          env: { PROVD_URL: url, PROVD_AUTH_TOKEN: token },
        },
      );
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(watched.stdout, /^refused EPERM$/m, watched.stdout);
      const after = await watchedCheck(url);
      assert.equal(after['connects_refused'], (before['connects_refused'] as number) + 1);
    });
  });

  describe('with the sensor capturing the whole host (--capture host)', function () {
    this.timeout(240_000);
    const shared = useSharedDaemon({ sensor: true, authToken: token, args: ['--capture', 'host'] });
    const work = useTempDir('provd-watched-writes-host-');
    before(skipWithoutWatchSensor);

    it('refuses the same writes: the kernel keeps the bound set for the mark in every capture mode', async function () {
      const url = shared.daemon.url;
      await attackIsRefused(url, work.path, 'host', underWatch(url, 'host-attack'));
    });

    it('refuses them from the child of a process bound by its pid: the kernel binds it at its fork in every capture mode', async function () {
      const url = shared.daemon.url;
      await attackIsRefused(url, work.path, 'forked', forkedUnderBoundPid(url, 'forked-attack'));
    });

    it("takes the writes of a process given a bound process's pid after it exited: the kernel unbinds a pid at its exit in every capture mode", async function () {
      const url = shared.daemon.url;
      const first = spawn('/bin/sh', ['-c', 'read go'], { stdio: ['pipe', 'pipe', 'pipe'] });
      const ended = ranToEnd(first);
      await bindPid(url, 'reused-first', first.pid!);
      first.stdin.end('go\n');
      await ended;
      const ran = await givenPid(first.pid!)(attackCommand(url, work.path, 'reused'));
      assert.equal(ran.code, 0, ran.stderr);
      assert.deepEqual(statusesOf(answersOf(ran.stdout)), everyWriteTaken);
    });
  });

  describe("health's watched_callers check without the sensor", function () {
    const shared = useSharedDaemon({ authToken: token });

    it('says writes of watched processes are not told apart, and why', async function () {
      const check = await watchedCheck(shared.daemon.url);
      assert.equal(check['status'], 'unavailable');
      assert.equal(
        check['message'],
        'writes of watched processes over HTTP are not told apart: the sensor is not running: turned off with --no-sensor',
      );
      assert.equal(check['refused_writes'], 0);
    });
  });
});
