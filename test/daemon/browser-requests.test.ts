/**
 * A web page's requests to a daemon on 127.0.0.1, written as the page's browser sends them: simple
 * requests (a form, `text/plain`, a Blob with no type), requests carrying a foreign Origin or
 * Sec-Fetch-Site, and DNS rebinding (the page's own name in Host). Each is refused and leaves the
 * store as it was; the daemon's own clients (CLI, SDKs, curl) send none of these marks and pass.
 */
import assert from 'node:assert/strict';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { sendRaw } from '../support/raw-request.js';
import { nativeLine } from '../support/telemetry.js';

interface Answer {
  status: number;
  code: string | undefined;
  accept: string | undefined;
}

/** Sends exactly these headers (test/support/raw-request.ts); the error code and Accept of the answer. */
async function send(
  daemon: RunningDaemon,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const answer = await sendRaw(daemon, method, path, headers, body);
  const parsed = JSON.parse(answer.text) as { error?: { code?: string } };
  return { status: answer.status, code: parsed.error?.code, accept: answer.headers['accept'] };
}

const run = 'run-page';
/** The run the served requests bind: the forged one (`run`) stays unbound in the shared daemon. */
const served = 'run-page-served';
const bindBody = JSON.stringify({
  run_id: run,
  tool_call_id: 'tc',
  cgroup_id: '777',
  binding_source: 'control_plane',
});
const ingestBody = [
  nativeLine({ run_id: run, comm: 'forged' }),
  JSON.stringify({ event_type: 'capture_loss', timestamp: '2026-01-01T00:00:02Z', lost_events: 9 }),
].join('\n');
const recordBody = JSON.stringify({ run_id: run, tool_call_id: 'tc-2', command: 'make', execute: false });
const writes: readonly [path: string, body: string][] = [
  ['/v1/telemetry/bind', bindBody],
  ['/v1/telemetry/ingest?format=native', ingestBody],
  ['/v1/record', recordBody],
];

/** What the store holds that a forged write would change: the runs, the producers' counts, health. */
async function storeState(daemon: RunningDaemon): Promise<unknown> {
  const runs = await request(daemon.url, '/v1/runs');
  const producers = await request(daemon.url, '/v1/telemetry/producer-health');
  const health = await request(daemon.url, '/v1/health');
  return {
    runs: runs.body['runs'],
    sources: producers.body['sources'],
    health: [health.body['status'], health.body['coverage_status']],
  };
}

describe('requests a web page makes', function () {
  const fixture = useDaemonFixture();
  // one daemon without a token for the tests that compare the store before and after their own
  // requests, or only read answers; a token keeps a daemon of its own
  const shared = useSharedDaemon();

  it("refuses a page's simple writes (text/plain, a form, multipart, no type) with 415, storing nothing", async function () {
    const { daemon } = shared;
    const before = await storeState(daemon);
    const simpleTypes = [
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ];
    for (const [path, body] of writes) {
      for (const type of simpleTypes) {
        const answer = await send(
          daemon,
          'POST',
          path,
          type === undefined ? {} : { 'content-type': type },
          body,
        );
        assert.equal(answer.status, 415, `${path} as ${type ?? 'no type'}`);
        assert.equal(answer.code, 'unsupported_media_type');
        assert.match(
          answer.accept ?? '',
          /^application\/(json|x-ndjson)/,
          'the answer names the type to send',
        );
      }
    }
    // a type close to the right one is not it either
    for (const type of ['application/json; charset=latin1', 'application/jsonx', 'text/json']) {
      const answer = await send(daemon, 'POST', '/v1/telemetry/bind', { 'content-type': type }, bindBody);
      assert.equal(answer.status, 415, type);
    }
    assert.deepEqual(await storeState(daemon), before, 'nothing was bound, recorded or ingested');
    const verify = await request(daemon.url, `/v1/graph/verify?run=${run}`);
    assert.equal(verify.status, 404, 'the forged run does not exist');
  });

  it('refuses with 403 a write that carries a foreign Origin or a cross-site fetch mark, storing nothing', async function () {
    const { daemon } = shared;
    const before = await storeState(daemon);
    const marks: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' }, // sandboxed frames and file: pages
      { origin: `http://evil.example:${daemon.port}` },
      { origin: `http://localhost:${daemon.port + 1}` }, // another local web app
      { origin: `https://127.0.0.1:${daemon.port}` },
      { origin: `http://0.0.0.0:${daemon.port}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const [path, body] of writes) {
      for (const mark of marks) {
        const type = path.startsWith('/v1/telemetry/ingest') ? 'application/x-ndjson' : 'application/json';
        const answer = await send(daemon, 'POST', path, { 'content-type': type, ...mark }, body);
        assert.deepEqual([answer.status, answer.code], [403, 'forbidden'], `${path} ${JSON.stringify(mark)}`);
      }
    }
    assert.deepEqual(await storeState(daemon), before);
  });

  it("refuses a page's reads: an <img> of verify, a rebinding page's events and health", async function () {
    const { daemon } = shared;
    const bound = { run_id: served, tool_call_id: 'tc', cgroup_id: '777', binding_source: 'control_plane' };
    await request(daemon.url, '/v1/telemetry/bind', { method: 'POST', body: JSON.stringify(bound) });
    const reads = [
      `/v1/graph/verify?run=${served}`,
      `/v1/graph/checkpoint?run=${served}`,
      `/v1/telemetry/events?run=${served}`,
      '/v1/health',
    ];
    for (const path of reads) {
      const image = await send(daemon, 'GET', path, {
        'sec-fetch-site': 'cross-site',
        'sec-fetch-dest': 'image',
      });
      assert.deepEqual([image.status, image.code], [403, 'forbidden'], `<img src=${path}>`);
      for (const host of [
        `evil.example:${daemon.port}`,
        'evil.example',
        `0.0.0.0:${daemon.port}`,
        `127.0.0.1.evil.example`,
      ]) {
        const rebound = await send(daemon, 'GET', path, { host });
        assert.deepEqual([rebound.status, rebound.code], [403, 'forbidden'], `${path} with Host ${host}`);
      }
    }
  });

  it("serves the daemon's own clients: loopback names, its own origin, a typed URL, the body types with parameters", async function () {
    const { daemon } = shared;
    for (const host of [
      `127.0.0.1:${daemon.port}`,
      `localhost:${daemon.port}`,
      'LOCALHOST',
      `[::1]:${daemon.port}`,
      `app.localhost:${daemon.port}`,
      '127.1.2.3',
    ]) {
      assert.equal((await send(daemon, 'GET', '/v1/health', { host })).status, 200, host);
    }
    const own: Record<string, string>[] = [
      { origin: `http://127.0.0.1:${daemon.port}` },
      { origin: `http://localhost:${daemon.port}` },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-site': 'same-origin' },
    ];
    for (const [index, mark] of own.entries()) {
      const body = JSON.stringify({ run_id: served, tool_call_id: `tc-${index}`, cgroup_id: '777' });
      const bound = await send(
        daemon,
        'POST',
        '/v1/telemetry/bind',
        { 'content-type': 'application/json; charset=utf-8', ...mark },
        body,
      );
      assert.equal(bound.status, 200, JSON.stringify(mark));
    }
    for (const type of [
      'application/x-ndjson',
      'application/ndjson',
      'application/jsonl',
      'Application/X-NDJSON; charset="UTF-8"',
    ]) {
      const answer = await send(
        daemon,
        'POST',
        '/v1/telemetry/ingest?format=native',
        { 'content-type': type },
        nativeLine({ run_id: run }),
      );
      assert.equal(answer.status, 200, type);
    }
  });

  it("serves the web view's same-origin reads only at the daemon's own loopback name and port, token or not", async function () {
    const token = 'browser-view-token';
    for (const authToken of [token, undefined]) {
      // without a token, the shared daemon; with one, a daemon of its own
      const daemon = authToken === undefined ? shared.daemon : await fixture.start({ authToken });
      const auth: Record<string, string> =
        authToken === undefined ? {} : { authorization: `Bearer ${token}` };
      const sameOrigin = { ...auth, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' };
      for (const host of [`127.0.0.1:${daemon.port}`, `localhost:${daemon.port}`, `[::1]:${daemon.port}`]) {
        const answer = await send(daemon, 'GET', '/v1/runs', { ...sameOrigin, host });
        assert.equal(answer.status, 200, `${host} token ${authToken !== undefined}`);
      }
      // a rebinding page's fetch is same-origin to itself: its Host names it, or another port
      for (const host of [
        `evil.example:${daemon.port}`,
        `127.0.0.1.evil.example:${daemon.port}`,
        `127.0.0.1:${daemon.port + 1}`,
        '127.0.0.1', // port 80, as a browser leaves it out
        `0.0.0.0:${daemon.port}`,
      ]) {
        for (const path of ['/v1/runs', `/v1/graph/verify?run=${run}`, '/v1/health']) {
          const answer = await send(daemon, 'GET', path, { ...sameOrigin, host });
          const what = `${path} Host ${host} token ${authToken !== undefined}`;
          assert.deepEqual([answer.status, answer.code], [403, 'forbidden'], what);
        }
      }
      // another site's page is refused with the token too: the guard comes before auth
      const marks: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example' },
      ];
      for (const mark of marks) {
        const answer = await send(daemon, 'GET', '/v1/runs', { ...auth, ...mark });
        assert.deepEqual([answer.status, answer.code], [403, 'forbidden'], JSON.stringify(mark));
      }
      if (authToken !== undefined) await daemon.stop();
    }
  });

  it('with a token, serves a remote name in Host (the token keeps pages out) but still refuses a foreign Origin', async function () {
    const token = 'browser-test-token';
    const daemon = await fixture.start({ authToken: token });
    const auth = { authorization: `Bearer ${token}` };
    const remote = await send(daemon, 'GET', '/v1/runs', { ...auth, host: 'provd.internal:8574' });
    assert.equal(remote.status, 200);
    const withoutToken = await send(daemon, 'GET', '/v1/runs', { host: 'evil.example' });
    assert.equal(withoutToken.status, 401);
    const page = await send(
      daemon,
      'POST',
      '/v1/telemetry/bind',
      { ...auth, 'content-type': 'application/json', origin: 'https://evil.example' },
      bindBody,
    );
    assert.deepEqual([page.status, page.code], [403, 'forbidden']);
  });
});
