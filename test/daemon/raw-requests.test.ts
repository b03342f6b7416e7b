import assert from 'node:assert/strict';
import {
  assertStopsCleanly,
  makeDataDir,
  removeDir,
  startDaemon,
  type RunningDaemon,
} from '../support/daemon.js';
import { request } from '../support/http.js';
import { RawConnection, sendRaw } from '../support/raw-http.js';

const bodyLimit = 1048576;
/** uWS closes a connection that sent no complete request within its 10-second idle timeout (4 s ticks). */
const idleTimeoutBoundMs = 20_000;
/** Well under that timeout: a connection closed sooner was closed at once, not by the timeout. */
const atOnceBoundMs = 5_000;

const post = (extra: string): string => `POST /v1/telemetry/bind HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
const fields = (count: number): string =>
  Array.from({ length: count }, (_v, i) => `X-Field-${i}: v\r\n`).join('');

/** Requests uWS's parser refuses at once: the connection closes without an answer (README). */
const closedAtOnce: Record<string, string> = {
  'no Host header': 'GET /v1/live HTTP/1.1\r\nAccept: */*\r\n\r\n',
  'Content-Length with Transfer-Encoding':
    post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n',
  'a header flood (2,000 fields)': `GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields(2000)}\r\n`,
  'an invalid chunk size': post('Transfer-Encoding: chunked\r\n') + 'zz\r\nabc\r\n',
};

/** Requests uWS's parser takes for an unfinished head: no answer, closed by its idle timeout (README). */
const closedByIdleTimeout: Record<string, string> = {
  'a raw space in the target': 'GET /v1/li ve HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'a NUL in the target': 'GET /v1/li\0ve HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'HTTP/1.0 without Host': 'GET /v1/live HTTP/1.0\r\n\r\n',
  'HTTP/1.0 with Host': 'GET /v1/live HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n',
  'LF-only line ends': 'GET /v1/live HTTP/1.1\nHost: 127.0.0.1\n\n',
  'an absolute-form target': 'GET http://x/v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  'non-HTTP bytes (a TLS ClientHello)': '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03hello\r\n\r\n',
  'more than 48 header fields': `GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields(60)}\r\n`,
};

describe('raw HTTP requests', function () {
  let dataDir: string;
  let daemon: RunningDaemon;

  before(async function () {
    dataDir = makeDataDir();
    daemon = await startDaemon({ dataDir, args: ['--max-body-bytes', String(bodyLimit)] });
  });

  after(async function () {
    await assertStopsCleanly(daemon);
    removeDir(dataDir);
  });

  it('answers HEAD with the headers of GET and no body, keeping the connection usable', async function () {
    const connection = await RawConnection.open(daemon.port);
    try {
      for (const path of ['/v1/live', '/v1/health', '/v1/openapi.json', '/v1/nope', '/v1/telemetry/ingest']) {
        const head = await connection.ask(`HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, true);
        const get = await connection.ask(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        assert.equal(head.status, get.status, path);
        // health's body holds a measured latency, and a 405 names the method: their lengths may differ
        const length = Number(head.headers.get('content-length'));
        if (path === '/v1/health' || get.status === 405)
          assert.ok(Math.abs(length - get.body.length) < 8, path);
        else assert.equal(length, get.body.length, path);
        assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
        assert.equal(connection.unread.length, 0, `${path}: nothing follows the GET answer`);
      }
    } finally {
      connection.close();
    }
  });

  it('lists HEAD in Allow wherever GET is allowed', async function () {
    const { status, headers } = await request(daemon.url, '/v1/live', { method: 'POST', body: '{}' });
    assert.equal(status, 405);
    assert.equal(headers.get('allow'), 'GET, HEAD');
  });

  it('closes at once, without an answer, what uWS refuses while parsing the head', async function () {
    const outcomes = await Promise.all(
      Object.values(closedAtOnce).map((bytes) => sendRaw(daemon.port, bytes, atOnceBoundMs)),
    );
    for (const [index, label] of Object.keys(closedAtOnce).entries()) {
      assert.deepEqual(
        { closed: outcomes[index]?.closed, answer: outcomes[index]?.bytes.toString() },
        { closed: true, answer: '' },
        label,
      );
    }
  });

  it('closes, without an answer, a head uWS cannot parse once its idle timeout passes', async function () {
    this.timeout(idleTimeoutBoundMs + 10_000);
    const outcomes = await Promise.all(
      Object.values(closedByIdleTimeout).map((bytes) => sendRaw(daemon.port, bytes, idleTimeoutBoundMs)),
    );
    for (const [index, label] of Object.keys(closedByIdleTimeout).entries()) {
      assert.deepEqual(
        { closed: outcomes[index]?.closed, answer: outcomes[index]?.bytes.toString() },
        { closed: true, answer: '' },
        label,
      );
    }
  });

  for (const [declared, status, code] of [
    ['1000000000', 413, 'payload_too_large'],
    ['99999999999999999999', 413, 'payload_too_large'],
    ['-5', 400, 'invalid_argument'],
    ['12abc', 400, 'invalid_argument'],
  ] as const) {
    it(`answers ${status} ${code} with the JSON error, then closes, for Content-Length: ${declared}`, async function () {
      const { bytes, closed } = await sendRaw(
        daemon.port,
        post(`Content-Length: ${declared}\r\n`),
        atOnceBoundMs,
      );
      const text = bytes.toString();
      const split = text.indexOf('\r\n\r\n');
      assert.match(
        text.slice(0, split),
        new RegExp(`^HTTP/1\\.1 ${status} [^]*\r\nConnection: close\r\n`, 'i'),
      );
      const body = JSON.parse(text.slice(split + 4)) as { error: { code: string } };
      assert.equal(body.error.code, code);
      assert.ok(closed, 'the connection is closed after the answer');
    });
  }

  it('answers 413 with the JSON error and closes for the largest Content-Length uWS accepts', async function () {
    const { bytes, closed } = await sendRaw(
      daemon.port,
      post('Content-Length: 999999999\r\n'),
      atOnceBoundMs,
    );
    const text = bytes.toString();
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.match(text, /\r\nConnection: close\r\n/i);
    assert.match(text, /"code":"payload_too_large"/);
    assert.ok(closed, 'the connection is closed after the answer');
  });

  it('still serves after every malformed request', async function () {
    assert.equal((await request(daemon.url, '/v1/live')).status, 200);
    assert.equal(daemon.child.exitCode, null);
  });
});
