import assert from 'node:assert/strict';
import {
  makeDataDir,
  removeDir,
  startDaemon,
  type RunningDaemon,
  assertStopsCleanly,
} from '../support/daemon.js';
import { postChunked, postHeadOnly, request } from '../support/http.js';

describe('http server', function () {
  let dataDir: string;
  let daemon: RunningDaemon;

  before(async function () {
    dataDir = makeDataDir();
    daemon = await startDaemon({ dataDir, args: ['--max-body-bytes', '1048576'] });
  });

  after(async function () {
    await assertStopsCleanly(daemon);
    removeDir(dataDir);
  });

  it('answers 404 not_found for an unknown path', async function () {
    const { status, body } = await request(daemon.url, '/v1/nope');
    assert.equal(status, 404);
    assert.deepEqual(body['error'], { code: 'not_found', message: 'no such path: /v1/nope' });
  });

  it('answers 405 with an Allow header for a known path and a wrong method', async function () {
    const { status, headers, body } = await request(daemon.url, '/v1/health', { method: 'POST', body: '{}' });
    assert.equal(status, 405);
    assert.equal(headers.get('allow'), 'GET, HEAD');
    assert.equal((body['error'] as Record<string, unknown>)['code'], 'method_not_allowed');
  });

  it('answers 413 at once when Content-Length is over the limit, before any of the body is sent', async function () {
    const { status, headers, body } = await postHeadOnly(daemon.url, '/v1/telemetry/ingest', 1048577);
    assert.equal(status, 413);
    assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, 'payload_too_large');
    assert.equal(headers['connection'], 'close');
  });

  it('answers 413 when a chunked body without Content-Length grows over the limit', async function () {
    const { status, body } = await postChunked(
      daemon.url,
      '/v1/telemetry/ingest',
      Buffer.alloc(3 * 1048576, 'a'),
    );
    assert.equal(status, 413);
    assert.equal((JSON.parse(body) as { error: { code: string } }).error.code, 'payload_too_large');
  });

  it('reads a body within the limit before answering', async function () {
    const { status, body } = await request(daemon.url, '/v1/record', {
      method: 'POST',
      body: '{"command":"true","execute":false}',
    });
    assert.equal(status, 200);
    assert.equal(body['status'], 'asserted');
  });

  it('serves its OpenAPI document', async function () {
    const { status, body } = await request(daemon.url, '/v1/openapi.json');
    assert.equal(status, 200);
    assert.equal(body['openapi'], '3.1.0');
    assert.equal((body['info'] as Record<string, unknown>)['version'], '1.0');
  });

  it('echoes a well-formed X-Request-Id and makes one up otherwise', async function () {
    const echoed = await request(daemon.url, '/v1/live', { headers: { 'x-request-id': 'trace-42.a' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-42.a');
    const replaced = await request(daemon.url, '/v1/live', {
      headers: { 'x-request-id': 'bad id <script>' },
    });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const made = await request(daemon.url, '/v1/nope');
    assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('answers JSON with a charset on every path', async function () {
    const response = await fetch(daemon.url + '/v1/live');
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    await response.text();
  });
});
