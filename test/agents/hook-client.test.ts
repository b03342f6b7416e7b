/**
 * The hook transport end to end: the real compiled provd-hook against a real daemon's hook socket.
 * Each agent's answer (allow, and its own deny for `cat /etc/shadow > stolen.txt`), PROVD_RUN and the
 * peer's credentials reaching the stored event, the daemon down (fail_open, fail_closed) with the
 * spool stored and its gap recorded at the next start, hostile input on the socket and in the
 * spool, the socket file's life, and the HTTP route unchanged beside it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { connect, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { hookClientPath, hookSocketName } from '../../src/agents/hook-command.js';
import { readPeerCredentials } from '../../src/daemon/peer-credentials.js';
import { capturedPayloads } from '../support/agents/captured-payloads.js';
import { cliPath, startDaemon, useDaemonFixture } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';

const captured = capturedPayloads();

/**
 * Stands in for the agent whose hook the client is: the daemon admits a hook only from a process
 * that runs the agent (docs/agents.md, "Who may send a hook"). Runs the client with the agent's
 * stdio, tells its pid on fd 3, and exits with its status. Named `<agent>-agent.mjs` in a directory
 * any user may read, so an agent of another user runs it too.
 */
const standInSource = `import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
const [client, ...args] = process.argv.slice(2);
const child = spawn(client, args, { stdio: 'inherit' });
writeSync(3, child.pid + '\\n');
child.on('exit', (code, signal) => process.exit(code ?? 128));
`;
let standIns: string | undefined;

function standIn(agent: string): string {
  if (standIns === undefined) {
    standIns = mkdtempSync(join(tmpdir(), 'provd-hook-agents-'));
    chmodSync(standIns, 0o755);
  }
  const path = join(standIns, `${agent}-agent.mjs`);
  if (!existsSync(path)) writeFileSync(path, standInSource, { mode: 0o644 });
  return path;
}

const stealShadow = 'cat /etc/shadow > stolen.txt';
const agents = ['claude', 'codex', 'gemini'] as const;
type Agent = (typeof agents)[number];

/** The agent's captured pre-tool payload, its shell call running `command`, with this tool-call id. */
function preToolPayload(agent: Agent, command: string, id: string): Record<string, unknown> {
  const event = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
  const { payload } = captured.find((one) => one.agent === agent && one.event === event)!;
  if (agent === 'gemini')
    return {
      ...payload,
      session_id: `gemini-${id}`,
      tool_name: 'run_shell_command',
      tool_input: { command },
    };
  return {
    ...payload,
    session_id: `${agent}-${id}`,
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  };
}

function isDeny(agent: Agent, answer: Record<string, unknown>): boolean {
  if (agent === 'gemini') return answer['decision'] === 'deny' && typeof answer['reason'] === 'string';
  const output = answer['hookSpecificOutput'] as Record<string, unknown> | undefined;
  return output?.['permissionDecision'] === 'deny' && output['hookEventName'] === 'PreToolUse';
}

interface ClientRun {
  pid: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled client as an agent's hook would, under a stand-in agent: the payload on stdin, env as given. */
function runClient(
  agent: string,
  socket: string,
  payload: string,
  env: Record<string, string> = {},
  identity: { uid?: number; gid?: number } = {},
): Promise<ClientRun> {
  const child = spawn(process.execPath, [standIn(agent), hookClientPath(), agent, '--socket', socket], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    ...identity,
  });
  let stdout = '';
  let stderr = '';
  let told = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  (child.stdio[3] as Readable).on('data', (chunk: Buffer) => (told += chunk.toString()));
  child.stdin.end(payload);
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ pid: Number.parseInt(told, 10) || -1, code, stdout, stderr })),
  );
}

/** Sends raw bytes on the socket and resolves with all it answered once it closes (or after `waitMs`). */
function rawExchange(socket: string, bytes: string | Buffer, end = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let answer = '';
    connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    connection.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(answer) : reject(error),
    );
    connection.on('close', () => resolve(answer));
    connection.write(bytes);
    if (end) connection.end();
  });
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

describe('provd-hook and the hook socket', function () {
  this.timeout(120_000);
  const fixture = useDaemonFixture();

  before(function () {
    if (!existsSync(hookClientPath())) {
      console.log(`    skipped: ${hookClientPath()} is not built (npm run build:hook-client, or .ci/setup)`);
      this.skip();
    }
    if (readPeerCredentials === null) {
      console.log(
        '    skipped: the hash addon is not built (npm run build:native), so there is no hook socket',
      );
      this.skip();
    }
  });

  after(function () {
    if (standIns !== undefined) rmSync(standIns, { recursive: true, force: true });
  });

  const socketOf = (dataDir: string): string => join(dataDir, hookSocketName);

  it("answers each agent through the real client: {} for an allowed call, the agent's own deny for cat /etc/shadow > stolen.txt; the HTTP route unchanged beside it", async function () {
    const daemon = await fixture.start({ authToken: 'hook-client-token' });
    const socket = socketOf(daemon.dataDir);
    assert.equal(statSync(socket).mode & 0o777, 0o666, 'local users may connect');
    for (const agent of agents) {
      const allowed = await runClient(
        agent,
        socket,
        JSON.stringify(preToolPayload(agent, 'ls -la', `ok_${agent}`)),
      );
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.deepEqual(JSON.parse(allowed.stdout), {}, `${agent} allowed`);
      assert.equal(allowed.stderr, '');
      const denied = await runClient(
        agent,
        socket,
        JSON.stringify(preToolPayload(agent, stealShadow, `no_${agent}`)),
      );
      assert.equal(denied.code, 0, denied.stderr);
      const answer = JSON.parse(denied.stdout) as Record<string, unknown>;
      assert.ok(isDeny(agent, answer), `${agent}: ${denied.stdout}`);
      assert.match(denied.stdout, /\/etc\/shadow/);
      // the HTTP route still wants the token, and answers the same with it
      const body = JSON.stringify(preToolPayload(agent, stealShadow, `http_${agent}`));
      const noToken = await request(daemon.url, `/v1/hooks/${agent}`, { method: 'POST', body });
      assert.equal(noToken.status, 401);
      const withToken = await request(daemon.url, `/v1/hooks/${agent}`, {
        method: 'POST',
        body,
        headers: { authorization: 'Bearer hook-client-token' },
      });
      assert.equal(withToken.status, 200);
      assert.deepEqual(withToken.body, answer);
    }
  });

  it("stores the event in the run PROVD_RUN names, with the peer's pid, uid and gid from the kernel", async function () {
    const daemon = await fixture.start();
    const payload = JSON.stringify(preToolPayload('claude', 'ls', 'toolu_peer'));
    const run = await runClient('claude', socketOf(daemon.dataDir), payload, { PROVD_RUN: 'watched run/1' });
    assert.equal(run.code, 0, run.stderr);
    const other = await runClient(
      'claude',
      socketOf(daemon.dataDir),
      JSON.stringify(preToolPayload('claude', 'ls', 'toolu_session')),
    );
    assert.equal(other.code, 0, other.stderr);
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const rows = await queryRows(
        connection,
        `SELECT run_id, json_extract(body, '$.payload.hook_payload')::VARCHAR AS hook FROM objects
         WHERE kind = 'tool_call' ORDER BY run_id`,
      );
      assert.deepEqual(
        rows.map((row) => row['run_id']),
        ['claude-toolu_session', 'watched run/1'],
        'PROVD_RUN names the run; without it, the session',
      );
      const hook = JSON.parse(String(rows[1]!['hook'])) as Record<string, unknown>;
      assert.equal(hook['provd_transport'], 'socket');
      assert.deepEqual(hook['provd_peer'], { pid: run.pid, uid: process.getuid!(), gid: process.getgid!() });
    });
  });

  it('answers by hooks.on_daemon_down when no daemon runs (fail_open: {}; fail_closed: the deny of each agent), spools the events, and stores them at the next start with the gap recorded', async function () {
    const policy = join(fixture.dataDir, 'policy.yaml');
    const dataDir = join(fixture.dataDir, 'data');
    const socket = socketOf(dataDir);
    for (const mode of ['fail_open', 'fail_closed']) {
      writeFileSync(policy, `hooks:\n  on_daemon_down: ${mode}\n`);
      const daemon = await startDaemon({ dataDir, args: ['--policy', policy] });
      assert.equal(await daemon.stop(), 0);
      assert.equal(existsSync(socket), false, 'the socket is removed at stop');
      for (const agent of agents) {
        const id = `${mode}_${agent}`;
        const down = await runClient(agent, socket, JSON.stringify(preToolPayload(agent, 'ls', id)), {
          PROVD_RUN: `down-${mode}`,
        });
        assert.equal(down.code, 0);
        assert.match(down.stderr, /cannot connect to the hook socket/);
        const answer = JSON.parse(down.stdout) as Record<string, unknown>;
        if (mode === 'fail_open') assert.deepEqual(answer, {}, agent);
        else {
          assert.ok(isDeny(agent, answer), `${agent}: ${down.stdout}`);
          assert.match(down.stdout, /daemon is down/);
        }
      }
    }
    // a non-tool event is never denied, even failing closed; it is spooled too
    const stop = captured.find((one) => one.agent === 'claude' && one.event === 'Stop')!.payload;
    const stopRun = await runClient('claude', socket, JSON.stringify(stop), {
      PROVD_RUN: 'down-fail_closed',
    });
    assert.deepEqual(JSON.parse(stopRun.stdout), {});
    const spoolFile = join(dataDir, 'hook-spool', `${process.getuid!()}.ndjson`);
    assert.equal(statSync(spoolFile).mode & 0o777, 0o600);
    // the fail_open round's events were stored by the fail_closed daemon's start
    assert.equal(readFileSync(spoolFile, 'utf8').trim().split('\n').length, 4);
    // hostile spool content: a garbage line in our own file, a file of another user named for us
    writeFileSync(spoolFile, 'not json\n{"time":"x","agent":"claude","answered":"allow"}\n', { flag: 'a' });
    const forged = join(dataDir, 'hook-spool', '4242.ndjson');
    writeFileSync(forged, readFileSync(spoolFile, 'utf8').split('\n')[0] + '\n', { mode: 0o600 });
    chownSync(forged, 0, 0); // owned by root, named for uid 4242: refused

    const daemon = await startDaemon({ dataDir });
    const health = await request(daemon.url, '/v1/telemetry/producer-health');
    assert.equal(health.status, 200);
    await daemon.stop();
    assert.equal(existsSync(spoolFile), false, 'the spool is removed once stored');
    await withDatabase(join(dataDir, 'provd.duckdb'), async (connection) => {
      const calls = await queryRows(
        connection,
        `SELECT t.run_id, t.status, json_extract_string(o.body, '$.payload.decision.rule_id') AS rule
         FROM tool_calls t JOIN objects o ON o.hash = t.object_hash ORDER BY t.run_id, t.tool_call_id`,
      );
      const open = calls.filter((row) => row['run_id'] === 'down-fail_open');
      const closed = calls.filter((row) => row['run_id'] === 'down-fail_closed');
      assert.equal(open.length, 3);
      assert.equal(closed.length, 3);
      assert.ok(open.every((row) => row['status'] === 'asserted' && row['rule'] === 'hooks.on_daemon_down'));
      assert.ok(closed.every((row) => row['status'] === 'denied' && row['rule'] === 'hooks.on_daemon_down'));
      const gaps = await queryRows(
        connection,
        `SELECT run_id, source, lost_events, detail::VARCHAR AS detail FROM coverage_gaps
         WHERE kind = 'hook_daemon_down' ORDER BY run_id`,
      );
      assert.deepEqual(
        gaps.map((gap) => [gap['run_id'], Number(gap['lost_events'])]),
        [
          ['down-fail_closed', 4],
          ['down-fail_open', 3],
        ],
      );
      const counters = await queryRows(
        connection,
        `SELECT counter, value FROM producer_counters WHERE source = 'hook_spool' ORDER BY counter`,
      );
      assert.deepEqual(Object.fromEntries(counters.map((row) => [row['counter'], Number(row['value'])])), {
        invalid_lines: 2,
        refused_files: 1,
        stored: 7,
      });
    });
    const reported = health.body as { hooks: unknown; coverage_gaps: Record<string, unknown> };
    assert.deepEqual(reported.coverage_gaps['hook_daemon_down'], { gaps: 2, lost_events: 7 });
    assert.deepEqual(reported.hooks, {
      socket: {},
      spool: { invalid_lines: 2, refused_files: 1, stored: 7 },
      store: {},
    });
  });

  it('stores no spooled event twice when the daemon is killed while it reads the spool, and counts the one line in doubt', async function () {
    const dataDir = join(fixture.dataDir, 'spool-kill');
    const spoolDir = join(dataDir, 'hook-spool');
    await (await startDaemon({ dataDir })).stop(); // makes the data dir and its spool dir
    const prompt = captured.find(
      (one) => one.agent === 'claude' && one.event === 'UserPromptSubmit',
    )!.payload;
    const lines = 300;
    const spooled = Array.from({ length: lines }, (_, i) =>
      JSON.stringify({
        time: new Date(Date.UTC(2026, 10, 29, 3, 0, 0, i)).toISOString(),
        agent: 'claude',
        answered: 'allow',
        sent: false,
        run: 'spool-kill',
        payload: JSON.stringify({ ...prompt, prompt: `prompt ${i}` }),
      }),
    );
    writeFileSync(join(spoolDir, `${process.getuid!()}.ndjson`), spooled.join('\n') + '\n', { mode: 0o600 });

    // the first daemon is killed once it has stored a line: its place is kept beside the file it reads
    const first = spawn(
      process.execPath,
      [cliPath, 'daemon', '--listen', '127.0.0.1:0', '--data-dir', dataDir],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => first.once('exit', resolve));
    const placeFile = (): string | undefined =>
      readdirSync(spoolDir).find((name) => name.endsWith('.reading.progress'));
    const storedOne = (): boolean => {
      const name = placeFile();
      // 'done  N' after a line, 'doubt N' while the next is stored: either way the lines before N are stored
      return (
        name !== undefined && /^(done |doubt) 0*[1-9]/.test(readFileSync(join(spoolDir, name), 'latin1'))
      );
    };
    try {
      await eventually('the first daemon stored a spooled line', storedOne, (done) => done, {
        timeoutMs: 60_000,
        everyMs: 2,
      });
    } finally {
      // killed once a line is stored; and never left running when that wait fails
      first.kill('SIGKILL');
      await exited;
    }
    const progress = placeFile()!;
    const place = readFileSync(join(spoolDir, progress), 'latin1');
    assert.ok(existsSync(join(spoolDir, progress.replace(/\.progress$/, ''))), 'the file being read is kept');

    const daemon = await startDaemon({ dataDir });
    await daemon.stop();
    assert.deepEqual(readdirSync(spoolDir), [], 'the spool and its place are removed once read');
    await withDatabase(join(dataDir, 'provd.duckdb'), async (connection) => {
      const stored = await queryRows(
        connection,
        `SELECT json_extract_string(body, '$.payload.prompt_hash') AS prompt, count(*) AS copies
         FROM objects WHERE kind = 'hook_event' AND run_id = 'spool-kill' GROUP BY prompt`,
      );
      assert.ok(stored.every((row) => typeof row['prompt'] === 'string'));
      assert.deepEqual(
        stored.filter((row) => Number(row['copies']) !== 1),
        [],
        `no line stored twice (killed at ${place})`,
      );
      const counted = await queryRows(
        connection,
        `SELECT counter, value FROM producer_counters WHERE source = 'hook_spool' ORDER BY counter`,
      );
      const counters = new Map(counted.map((row) => [String(row['counter']), Number(row['value'])]));
      const storedAgain = counters.get('stored') ?? 0;
      // the line in doubt (killed between its store and its place) is counted, not stored again
      const inDoubt = counters.get('in_doubt') ?? 0;
      assert.ok(inDoubt === (place.startsWith('doubt') ? 1 : 0), `${place} ${JSON.stringify([...counters])}`);
      assert.ok(stored.length + inDoubt >= lines && stored.length <= lines, `${stored.length} stored`);
      assert.ok(storedAgain < lines, 'the second daemon stored only what the first had not');
      const [gap] = await queryRows(
        connection,
        `SELECT lost_events FROM coverage_gaps WHERE kind = 'hook_daemon_down' AND run_id = 'spool-kill'`,
      );
      assert.equal(Number(gap!['lost_events']), storedAgain + inDoubt);
    });
  });

  it('refuses a place beside a spool file that is not its own, and reads that file from its start', async function () {
    const dataDir = join(fixture.dataDir, 'spool-place');
    const spoolDir = join(dataDir, 'hook-spool');
    await (await startDaemon({ dataDir })).stop();
    const prompt = captured.find(
      (one) => one.agent === 'claude' && one.event === 'UserPromptSubmit',
    )!.payload;
    const text = [0, 1, 2]
      .map((i) =>
        JSON.stringify({
          time: new Date(Date.UTC(2026, 10, 29, 4, 0, 0, i)).toISOString(),
          agent: 'claude',
          answered: 'allow',
          run: 'spool-place',
          payload: JSON.stringify({ ...prompt, prompt: `prompt ${i}` }),
        }),
      )
      .join('\n');
    // a reading a killed daemon left, and a place another user planted that says it was all stored
    const reading = join(spoolDir, `${process.getuid!()}.ndjson.99999.reading`);
    writeFileSync(reading, `${text}\n`, { mode: 0o600 });
    const planted = `${reading}.progress`;
    writeFileSync(planted, `done  ${String(text.length + 1).padStart(20, '0')}\n`, { mode: 0o600 });
    chownSync(planted, 65534, 65534);
    const daemon = await startDaemon({ dataDir });
    await daemon.stop();
    assert.ok(
      daemon.logs.some(
        (entry) =>
          entry['msg'] ===
          'a hook spool progress file not the daemon’s own was refused; reading from the start',
      ),
      'the planted place is refused, and said so',
    );
    assert.deepEqual(readdirSync(spoolDir), []);
    await withDatabase(join(dataDir, 'provd.duckdb'), async (connection) => {
      const [row] = await queryRows(
        connection,
        `SELECT count(*) AS events FROM objects WHERE kind = 'hook_event' AND run_id = 'spool-place'`,
      );
      assert.equal(Number(row!['events']), 3);
    });
  });

  it('refuses hostile input on the socket with an error body and counts it: garbage, oversized, truncated, a slow client; serves many hooks at once', async function () {
    const daemon = await fixture.start();
    const socket = socketOf(daemon.dataDir);
    const garbage = await rawExchange(socket, 'garbage\r\n\r\n');
    assert.equal(statusOf(garbage), 400);
    assert.match(garbage, /not HTTP\/1\.1/);
    const oversized = await rawExchange(
      socket,
      'POST /v1/hooks/claude HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n{',
    );
    assert.equal(statusOf(oversized), 413);
    const streamed = await rawExchange(
      socket,
      Buffer.concat([
        Buffer.from('POST /v1/hooks/claude HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'),
        Buffer.from(`200000\r\n${'a'.repeat(0x200000)}\r\n0\r\n\r\n`),
      ]),
    );
    assert.equal(statusOf(streamed), 413, 'a chunked body over 1 MiB');
    const truncated = await rawExchange(
      socket,
      'POST /v1/hooks/claude HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{"se',
    );
    assert.notEqual(statusOf(truncated), 200, 'a truncated body is never an answer');
    const notAgent = await rawExchange(
      socket,
      'POST /v1/hooks/cursor HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}',
    );
    assert.equal(statusOf(notAgent), 404);
    const badPayload = await rawExchange(
      socket,
      'POST /v1/hooks/claude HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]',
    );
    assert.equal(statusOf(badPayload), 400);
    // a slow client: the head never ends; it is answered and closed, never held
    const slow = await rawExchange(socket, 'POST /v1/hooks/claude HTTP/1.1\r\nHost: x\r\n', false);
    assert.equal(statusOf(slow), 400);
    assert.match(slow, /did not arrive within 5 s/);
    // many hooks at once, through the client, all answered (each from an agent of its own: a
    // session's hooks must come from the one agent process its first hook bound)
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        runClient('claude', socket, JSON.stringify(preToolPayload('claude', 'ls', `toolu_many_${i}`))),
      ),
    );
    assert.deepEqual(
      runs.map((run) => run.stdout),
      runs.map(() => '{}'),
    );
    // oversized on the client's side: it says so and sends nothing
    const big = await runClient('claude', socket, 'x'.repeat(1024 * 1024 + 1));
    assert.match(big.stderr, /over 1 MiB/);
    assert.deepEqual(JSON.parse(big.stdout), {});
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const counters = await queryRows(
        connection,
        `SELECT counter, value FROM producer_counters WHERE source = 'hook_socket' ORDER BY counter`,
      );
      const counted: Record<string, number> = Object.fromEntries(
        counters.map((row) => [String(row['counter']), Number(row['value'])]),
      );
      assert.equal(counted['malformed'], 1, JSON.stringify(counted));
      assert.equal(counted['payload_too_large'], 2, JSON.stringify(counted));
      assert.equal(counted['timeout'], 1, JSON.stringify(counted));
      assert.equal(counted['truncated'], 1, JSON.stringify(counted));
      assert.equal(counted['not_found'], 1, JSON.stringify(counted));
      assert.equal(counted['invalid_payload'], 1, JSON.stringify(counted));
    });
  });

  it("serves an agent of another user (nobody) through a data dir of mode 0711, the peer's uid the kernel's; its spool is its own", async function () {
    if (process.getuid!() !== 0) {
      console.log('    skipped: not root, so no hook can run as another user');
      return this.skip();
    }
    const nobody = { uid: 65534, gid: 65534 };
    chmodSync(fixture.dataDir, 0o711);
    const daemon = await fixture.start();
    assert.equal(statSync(fixture.dataDir).mode & 0o777, 0o711, 'search alone is kept');
    const socket = socketOf(fixture.dataDir);
    const denied = await runClient(
      'gemini',
      socket,
      JSON.stringify(preToolPayload('gemini', stealShadow, 'x')),
      {},
      nobody,
    );
    assert.ok(
      isDeny('gemini', JSON.parse(denied.stdout) as Record<string, unknown>),
      denied.stdout + denied.stderr,
    );
    await daemon.stop();
    const down = await runClient(
      'gemini',
      socket,
      JSON.stringify(preToolPayload('gemini', 'ls', 'y')),
      {},
      nobody,
    );
    assert.deepEqual(JSON.parse(down.stdout), {});
    const spool = join(fixture.dataDir, 'hook-spool', '65534.ndjson');
    assert.equal(statSync(spool).uid, 65534, down.stderr);
    await fixture.start().then((again) => again.stop());
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const rows = await queryRows(
        connection,
        `SELECT json_extract(body, '$.payload.hook_payload')::VARCHAR AS hook FROM objects
         WHERE kind = 'tool_call' ORDER BY json_extract_string(body, '$.payload.hook_payload.provd_transport')`,
      );
      const hooks = rows.map((row) => JSON.parse(String(row['hook'])) as Record<string, unknown>);
      assert.equal((hooks[0]!['provd_peer'] as { uid: number }).uid, 65534);
      assert.deepEqual(hooks[1]!['provd_spool'], { uid: 65534, answered: 'allow' });
    });
  });

  it("denies a PreToolUse the daemon refuses as not the agent's own hook, though hooks.json fails open", async function () {
    const daemon = await fixture.start();
    assert.deepEqual(JSON.parse(readFileSync(join(daemon.dataDir, 'hooks.json'), 'utf8')), {
      on_daemon_down: 'fail_open',
    });
    // sent by the test runner itself, which runs no agent: refused (unbound), so never an allow
    for (const agent of agents) {
      const child = spawn(hookClientPath(), [agent, '--socket', socketOf(daemon.dataDir)], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end(JSON.stringify(preToolPayload(agent, 'ls', `toolu_outside_${agent}`)));
      const code = await new Promise((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      assert.match(stderr, /HTTP 403/);
      const answer = JSON.parse(stdout) as Record<string, unknown>;
      assert.ok(isDeny(agent, answer), `${agent}: ${stdout}`);
      assert.match(JSON.stringify(answer), /not the agent's own/);
    }
  });

  it('takes the answer once its Content-Length is in, though the daemon has not closed the connection yet', async function () {
    // a daemon closes a moment after it answers (its event loop's next turn, later on a busy host):
    // this one holds the connection open until the client has gone
    const dir = mkdtempSync(join(tmpdir(), 'provd-hook-open-'));
    const socket = join(dir, hookSocketName);
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'held open',
      },
    });
    const held: Socket[] = [];
    const server = createServer((connection) => {
      held.push(connection);
      connection.once('data', () =>
        connection.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(deny)}\r\n\r\n${deny}`,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const child = spawn(hookClientPath(), ['claude', '--socket', socket], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end(JSON.stringify(preToolPayload('claude', 'ls', 'toolu_held_open')));
      assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0, stderr);
      // waiting for the close instead would end in the client's 5 s deadline: fail_open's {} and a spooled event
      assert.equal(stdout, deny, stderr);
      assert.equal(stderr, '');
      assert.equal(existsSync(join(dir, 'hook-spool')), false, 'nothing spooled');
    } finally {
      for (const connection of held) connection.destroy();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a socket a killed daemon left, and refuses to start over a file that is not a socket', async function () {
    const killed = await fixture.start();
    assert.equal(await killed.stop('SIGKILL'), null);
    assert.ok(statSync(socketOf(fixture.dataDir)).isSocket(), 'the killed daemon left its socket');
    const next = await fixture.start();
    const answer = await runClient(
      'codex',
      socketOf(fixture.dataDir),
      JSON.stringify(preToolPayload('codex', 'ls', 'c1')),
    );
    assert.deepEqual(JSON.parse(answer.stdout), {});
    assert.equal(answer.stderr, '');
    await next.stop();
    writeFileSync(socketOf(fixture.dataDir), 'not a socket');
    await assert.rejects(fixture.start(), /PROVD_ERR_HOOK_SOCKET[\s\S]*is not a socket/);
    assert.equal(readFileSync(socketOf(fixture.dataDir), 'utf8'), 'not a socket', 'left as it was');
  });
  it('traces each hook it answers with PROVD_TRACE_STEPS: accept to answer, the event loop wait, placing and judging (bench/agent-hooks reads it)', async function () {
    const trace = join(mkdtempSync(join(tmpdir(), 'provd-hook-trace-')), 'steps.ndjson');
    try {
      const daemon = await fixture.start({ env: { PROVD_TRACE_STEPS: trace } });
      const socket = socketOf(daemon.dataDir);
      const pre = await runClient(
        'claude',
        socket,
        JSON.stringify(preToolPayload('claude', 'ls -la', 'traced_1')),
      );
      assert.deepEqual(JSON.parse(pre.stdout), {}, pre.stderr);
      const refused = await rawExchange(
        socket,
        'POST /v1/hooks/claude HTTP/1.1\r\nHost: provd\r\nContent-Length: 2\r\n\r\n{}',
      );
      assert.equal(statusOf(refused), 400, refused);
      // the line is written just after the answer: the client may read it first
      const lines = await eventually(
        'both answers traced',
        () =>
          readFileSync(trace, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .filter((line) => line['kind'] === 'hook_answer'),
        (traced) => traced.length >= 2,
      );
      assert.equal(lines.length, 2, JSON.stringify(lines));
      const [answered, bad] = lines as [Record<string, unknown>, Record<string, unknown>];
      assert.equal(answered['agent'], 'claude');
      assert.equal(answered['status'], 200);
      const steps = answered['steps'] as Record<string, number>;
      assert.deepEqual(Object.keys(steps).sort(), [
        'execs',
        'handle',
        'judge',
        'proc',
        'read',
        'send',
        'trust',
        'wait',
      ]);
      const total = answered['total_ms'] as number;
      // the laps from the accept lie within the total; placing and judging within handling
      const laps = steps['wait']! + steps['read']! + steps['handle']! + steps['send']!;
      assert.ok(laps <= total + 1e-6, `${laps} against ${total}`);
      assert.ok(steps['trust']! + steps['judge']! <= steps['handle']!, JSON.stringify(steps));
      // a payload refused before its caller is placed: no placing, no judge
      assert.equal(bad['status'], 400);
      assert.equal((bad['steps'] as Record<string, number>)['judge'], undefined, JSON.stringify(bad));
    } finally {
      rmSync(dirname(trace), { recursive: true, force: true });
    }
  });
});
