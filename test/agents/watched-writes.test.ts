/**
 * A watched process that found the daemon's token cannot write over HTTP: the kernel marks its
 * connections (bpf/connect-mark.bpf.c) and the daemon refuses its writes (src/daemon/watched-callers.ts).
 * The attack runs for real: a process under `provd watch` reads the token from a file and posts a
 * bind, a forged PostToolUse and an ingest; the same requests from outside the watched tree go
 * through. These tests start the sensor (`sensor: true`), so they run alone; they skip, saying why,
 * without root, BTF or a cgroup.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
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

describe('writes over HTTP from a watched process', function () {
  describe('with the sensor', function () {
    this.timeout(240_000);
    const shared = useSharedDaemon({ sensor: true, authToken: token });
    const work = useTempDir('provd-watched-writes-');
    before(skipWithoutWatchSensor);

    it('refuses a bind, a forged PostToolUse and an ingest 403 with the token; reads, the gate and ai_asserted binds go on', async function () {
      const url = shared.daemon.url;
      const before = await watchedCheck(url);
      assert.equal(before['status'], 'ok', JSON.stringify(before));
      const tokenFile = join(work.path, 'found-token');
      writeFileSync(tokenFile, token, { mode: 0o600 });
      const attemptsFile = join(work.path, 'attempts.json');
      writeFileSync(attemptsFile, JSON.stringify(attempts('inside')));
      const script = join(work.path, 'attack.mjs');
      writeFileSync(script, attackScript);

      const watched = await runCli(
        ['watch', '--run', 'run-attack', '--', process.execPath, script, url, tokenFile, attemptsFile],
        { env: { PROVD_URL: url, PROVD_AUTH_TOKEN: token } },
      );
      assert.equal(watched.code, 0, watched.stderr);
      const line = watched.stdout.split('\n').find((text) => text.startsWith('{'));
      const answers = JSON.parse(line ?? '{}') as Record<string, [number, string]>;
      const statuses = Object.fromEntries(Object.entries(answers).map(([name, [status]]) => [name, status]));
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
      assert.equal(await runStatus(url, 'inside-bind'), 404);
      assert.equal(await runStatus(url, 'inside-hook'), 404);
      assert.equal(await runStatus(url, 'inside-bind-mapped'), 404);
      assert.equal(await runStatus(url, 'inside-asserted'), 200);
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
      assert.deepEqual(statuses, {
        bind: 200,
        bind_mapped: 200,
        hook: 200,
        ingest: 200,
        bind_ai_asserted: 200,
        read: 200,
        gate: 200,
      });
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
