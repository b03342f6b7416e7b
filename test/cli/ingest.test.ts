import assert from 'node:assert/strict';
import { once } from 'node:events';
import { statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { runCli, type CliRun } from '../support/cli.js';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';

const fixtureFile = join(packageRoot, 'test', 'fixtures', 'native-ebpf-events.jsonl');

type Run = CliRun;

/** Runs `provd ingest ARGS` with `input` on stdin; resolves with its exit code and output. */
function provd(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return runCli(['ingest', ...args], options);
}

/** The CLI's waits before a resend, 20 times shorter: for tests of giving up, not of riding out a restart. */
const shortWaits = { PROVD_FAULT_CLI_WAIT_SCALE: '0.05' };

/** The one JSON summary line on stdout. */
function summaryOf(run: Run): Record<string, number> {
  assert.equal(run.code, 0, `exit code ${run.code}; stderr:\n${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one summary line expected, got:\n${run.stdout}`);
  return JSON.parse(lines[0]!) as Record<string, number>;
}

/** A native execve line; `pid` varies so lines differ. */
function nativeLine(pid: number): string {
  return JSON.stringify({
    event_type: 'execve',
    timestamp: '2026-01-01T00:00:01Z',
    pid,
    comm: 'sh',
    path: '/bin/sh',
  });
}

/** Writes `lines` (each newline-terminated) to a file in `dir` and returns its path. */
function writeLines(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => line + '\n').join(''));
  return path;
}

/** A stand-in daemon on a loopback port whose answers the test scripts; records each request body and key. */
async function startFakeDaemon(
  answer: (request: IncomingMessage, body: string, index: number, response: ServerResponse) => void,
): Promise<{ server: Server; url: string; bodies: string[]; keys: (string | undefined)[] }> {
  const bodies: string[] = [];
  const keys: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      bodies.push(body);
      keys.push(request.headers['idempotency-key'] as string | undefined);
      answer(request, body, bodies.length - 1, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, keys };
}

/** A loopback port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/** A provenance.ingest/v1 answer that accepts every line of `body`. */
function acceptAll(body: string): string {
  const lines = body.split('\n').filter((line) => line !== '').length;
  return JSON.stringify({
    schema_version: 'provenance.ingest/v1',
    batch_id: 'fake',
    accepted: lines,
    rejected: 0,
    pending: 0,
    errors: [],
    errors_truncated: false,
  });
}

describe('provd ingest', function () {
  const fixture = useDaemonFixture();
  // one plain daemon for the tests that read only what the CLI printed and the daemon answered
  // (each upload has Idempotency-Keys of its own), instead of one started a test
  const shared = useSharedDaemon();
  let fake: Server | undefined;

  afterEach(async function () {
    if (fake === undefined) return;
    fake.closeAllConnections();
    fake.close();
    await once(fake, 'close');
    fake = undefined;
  });

  it('prints a summary with every line accepted when it ingests a fixture file', async function () {
    const { daemon } = shared;
    const run = await provd(['--url', daemon.url, '--format', 'native', fixtureFile]);
    const summary = summaryOf(run);
    assert.deepEqual(Object.keys(summary).sort(), [
      'accepted',
      'bytes',
      'errors_shown',
      'events_per_second',
      'pending',
      'rejected',
      'requests',
      'seconds',
    ]);
    assert.equal(summary['accepted'], 4);
    assert.equal(summary['rejected'], 0);
    assert.equal(summary['requests'], 1);
    assert.equal(summary['bytes'], statSync(fixtureFile).size);
    assert.equal(summary['errors_shown'], 0);
    assert.equal(run.stderr, '');
  });

  it('sends many requests and loses no line when the file is many chunks long', async function () {
    const { daemon } = shared;
    const lines = Array.from({ length: 20_000 }, (_, index) => nativeLine(1000 + (index % 5000)));
    const file = writeLines(fixture.dataDir, 'many.jsonl', lines);
    const summary = summaryOf(await provd(['--url', daemon.url, '--chunk-bytes', '65536', file]));
    assert.ok(
      summary['requests']! >= Math.floor(statSync(file).size / 65536),
      `requests: ${summary['requests']}`,
    );
    assert.equal(summary['accepted']! + summary['rejected']!, 20_000);
    assert.equal(summary['accepted'], 20_000);
    assert.equal(summary['bytes'], statSync(file).size);
  });

  it('reports bad lines by their line number in the whole file when they are in the second chunk', async function () {
    const { daemon } = shared;
    const good = nativeLine(4242);
    const lines = Array.from({ length: 30 }, () => good);
    lines[12] = '{not json'; // line 13
    lines[16] = JSON.stringify({ event_type: 'teleport', timestamp: '2026-01-01T00:00:01Z' }); // line 17
    const file = writeLines(fixture.dataDir, 'bad.jsonl', lines);
    // lines 1..10 fill the first request exactly, so the bad lines are lines 3 and 7 of the second
    const chunkBytes = 10 * (good.length + 1);
    const run = await provd(['--url', daemon.url, '--chunk-bytes', String(chunkBytes), file]);
    const summary = summaryOf(run);
    assert.ok(summary['requests']! >= 3);
    assert.equal(summary['accepted'], 28);
    assert.equal(summary['rejected'], 2);
    assert.equal(summary['errors_shown'], 2);
    const shown = run.stderr.trim().split('\n');
    assert.equal(shown.length, 2, run.stderr);
    assert.match(shown[0]!, /^line 13: invalid_json: /);
    assert.match(shown[1]!, /^line 17: unknown_type: /);
  });

  it('reads stdin when FILE is -', async function () {
    const { daemon } = shared;
    const input = [nativeLine(1), nativeLine(2), nativeLine(3)].join('\n'); // no final newline
    const summary = summaryOf(await provd(['--url', daemon.url, '-'], { input }));
    assert.equal(summary['accepted'], 3);
    assert.equal(summary['bytes'], Buffer.byteLength(input));
  });

  it('sends the token from PROVD_AUTH_TOKEN, and exits 1 with the daemon message when it is wrong', async function () {
    const daemon = await fixture.start({ authToken: 'tok' });
    const ok = await provd([fixtureFile], { env: { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: 'tok' } });
    assert.equal(summaryOf(ok)['accepted'], 4);
    const refused = await provd([fixtureFile], { env: { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: 'nope' } });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /unauthorized: the bearer token is wrong \(the token in PROVD_AUTH_TOKEN/);
  });

  it('exits 2 when the file does not exist', async function () {
    const run = await provd(['--url', 'http://127.0.0.1:1', join(fixture.dataDir, 'missing.jsonl')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /PROVD_ERR_CONFIG_INVALID: cannot read FILE ".*missing\.jsonl": ENOENT/);
  });

  it('exits 2 before sending anything when --format is not a known format', async function () {
    const run = await provd(['--url', 'http://127.0.0.1:1', '--format', 'syslog', fixtureFile]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--format must be one of native, tetragon, falco, auto, got "syslog"/);
  });

  it('exits 1 naming the daemon address and saying nothing was stored when no daemon answers', async function () {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const run = await provd(['--url', `http://127.0.0.1:${port}`, fixtureFile], { env: shortWaits });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      new RegExp(`PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at http://127\\.0\\.0\\.1:${port}`),
    );
    assert.match(run.stderr, /provd: nothing was stored: the daemon committed none of the 4 lines read\n$/);
    assert.doesNotMatch(run.stderr, /sent/);
  });

  it('contacts the daemon even for an empty input, and exits 1 when none answers', async function () {
    const { daemon } = shared;
    const ok = await provd(['--url', daemon.url, '-'], { input: '' });
    assert.equal(summaryOf(ok)['requests'], 1, 'one empty request');
    assert.match(ok.stderr, /^provd: the input holds no lines: nothing to store\n$/);
    const blank = await provd(['--url', daemon.url, '-'], { input: '\n\n' });
    assert.equal(blank.code, 0, blank.stderr);
    assert.match(blank.stderr, /^provd: the input holds no lines: nothing to store\n$/);
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await provd(['--url', url, '-'], { input: '', env: shortWaits });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at /);
    assert.match(run.stderr, /the input holds no lines, and the daemon did not take the empty request/);
  });

  it('exits 1 saying nothing was stored when the daemon rejects every line, still printing the summary', async function () {
    const { daemon } = shared;
    const run = await provd(['--url', daemon.url, '--format', 'tetragon', fixtureFile]);
    assert.equal(run.code, 1, run.stderr);
    const summary = JSON.parse(run.stdout) as Record<string, number>;
    assert.equal(summary['accepted'], 0);
    assert.equal(summary['rejected'], 4);
    assert.match(run.stderr, /^line 1: /);
    assert.match(run.stderr, /provd: nothing was stored: the daemon rejected all 4 lines\n$/);
  });

  it('resends chunks the daemon refuses with 429 until every line is in', async function () {
    const daemon = await fixture.start({ args: ['--max-ingest-queue-bytes', '100000'] });
    const file = writeLines(
      fixture.dataDir,
      'flood.jsonl',
      Array.from({ length: 20_000 }, (_, i) => nativeLine(i + 1)),
    );
    const run = await provd(['--url', daemon.url, '--chunk-bytes', '65536', '--concurrency', '8', file], {
      env: shortWaits,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summaryOf(run)['accepted'], 20_000);
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    const buffering = producer['disk_buffering'] as Record<string, number>;
    assert.ok((buffering['ingest_refused_requests'] ?? 0) > 0, 'the daemon did answer 429, and counted it');
  });

  it('exits 1 after a few attempts when the daemon answers 503 because its store is unusable', async function () {
    writeFileSync(join(fixture.dataDir, 'provd.duckdb'), 'not a database');
    const daemon = await fixture.start();
    const run = await provd(['--url', daemon.url, fixtureFile], { env: shortWaits });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /unavailable: .*\(after 5 attempts\)/);
    assert.match(run.stderr, /nothing was stored: the daemon committed none of the 4 lines read/);
  });

  // The one stand-in daemon here: a real daemon cannot be made to commit a chunk and then fail the
  // next one on cue, and this is the path that tells a user where a rerun may start.
  it('gives up after a few attempts and says how much was committed when the daemon keeps answering 503', async function () {
    const good = nativeLine(7);
    const file = writeLines(
      fixture.dataDir,
      'five.jsonl',
      Array.from({ length: 5 }, () => good),
    );
    const started = await startFakeDaemon((_request, body, index, response) => {
      if (index === 0) return void response.writeHead(200).end(acceptAll(body));
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          schema_version: 'provenance.error/v1',
          error: { code: 'unavailable', message: 'store down' },
        }),
      );
    });
    fake = started.server;
    const chunkBytes = 2 * (good.length + 1);
    const run = await provd(
      ['--url', started.url, '--chunk-bytes', String(chunkBytes), '--concurrency', '1', file],
      { env: shortWaits },
    );
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /unavailable: store down \(after 5 attempts\)/);
    assert.match(
      run.stderr,
      /the daemon committed 2 of the 4 lines read \(2 accepted, 0 rejected\) in 1 request;/,
    );
    assert.match(run.stderr, /a rerun may start at line 3/);
    assert.equal(started.bodies.length, 6); // one committed chunk, then five attempts at the second
  });

  it('sends every chunk with its own Idempotency-Key, the same on each resend of it', async function () {
    const good = nativeLine(7);
    const file = writeLines(fixture.dataDir, 'keys.jsonl', [good, good, good, good]);
    // the connection of the first attempt at each chunk is cut before any answer
    const cut = new Set<string>();
    const started = await startFakeDaemon((request, body, _index, response) => {
      const key = String(request.headers['idempotency-key']);
      if (!cut.has(key)) {
        cut.add(key);
        return void request.socket.destroy();
      }
      response.writeHead(200).end(acceptAll(body));
    });
    fake = started.server;
    const chunkBytes = 2 * (good.length + 1);
    const args = ['--url', started.url, '--chunk-bytes', String(chunkBytes), '--concurrency', '1', file];
    const summary = summaryOf(await provd(args));
    assert.equal(summary['accepted'], 4);
    const [first, firstAgain, second, secondAgain] = started.keys;
    assert.equal(started.keys.length, 4);
    assert.match(String(first), /^[\x21-\x7e]{1,255}$/);
    assert.equal(firstAgain, first);
    assert.equal(secondAgain, second);
    assert.notEqual(second, first);
    const rerun = await startFakeDaemon((_request, body, _index, response) =>
      response.writeHead(200).end(acceptAll(body)),
    );
    try {
      summaryOf(await provd(['--url', rerun.url, '--chunk-bytes', String(chunkBytes), file]));
      assert.ok(!rerun.keys.includes(first), 'another upload of the same file uses other keys');
    } finally {
      rerun.server.close();
    }
  });

  it('stores every line once when the daemon dies after a commit and comes back during the resends', async function () {
    // an explicit port, as a real daemon has: uWS sets SO_REUSEADDR only then, and the restart
    // must bind it again past the crashed daemon's TIME_WAIT connections
    const port = await freePort();
    const listen = ['--listen', `127.0.0.1:${port}`];
    const crashing = await fixture.start({ args: listen, env: { PROVD_FAULT_KILL_AFTER_COMMIT: '1' } });
    const file = writeLines(
      fixture.dataDir,
      'crash.jsonl',
      Array.from({ length: 300 }, (_, i) => nativeLine(i + 1)),
    );
    const upload = provd(['--url', crashing.url, '--concurrency', '1', file]);
    assert.equal(await crashing.exited, null, 'the daemon killed itself after its first commit');
    const daemon = await fixture.start({ args: listen });
    const summary = summaryOf(await upload);
    assert.equal(summary['accepted'], 300);
    assert.equal(summary['requests'], 1);
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    const sources = producer['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['native_jsonl']?.['accepted'], 300, 'committed once, before the crash');
  });
});
