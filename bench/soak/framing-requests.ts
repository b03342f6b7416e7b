/**
 * Requests whose HTTP itself is hostile: broken framing (lengths that lie, chunks that are not,
 * both at once), odd request lines and headers, pipelining, and paths the routes do not hold. Each
 * goes on a connection of its own, which the soak closes after it: the daemon must answer it or
 * close, never fail with a 5xx or fall over.
 */
import type { Rng } from './rng.js';
import type { SoakRequest } from './soak-client.js';

/** Paths near the real ones: the router must answer 404 or 405, or the page, never more. */
const strayPaths = [
  '/',
  '/v1',
  '/v1/',
  '/V1/LIVE',
  '/v1/live/',
  '//v1/live',
  '/v1/../v1/graph/keys',
  '/v1/%2e%2e/graph/keys',
  '/v1/graph/keys%00',
  '/v1/graph/keys;x',
  '/ui',
  '/ui/',
  '/ui/../../etc/passwd',
  '/ui/%2e%2e/%2e%2e/etc/passwd',
  '/metrics/',
  '*',
  '/v1/telemetry/events/../../graph/keys',
  '/' + 'a'.repeat(9000),
];

/** A request with a stray path, as a client with the token sends it. */
export function strayPathRequest(rng: Rng, token: string): SoakRequest {
  return {
    method: rng.pick(['GET', 'POST', 'HEAD']),
    target: rng.pick(strayPaths),
    headers: [['Authorization', `Bearer ${token}`]],
  };
}

/** A request of raw bytes with hostile framing, for `port`, carrying the token. */
export function framingRequest(rng: Rng, token: string, port: number): SoakRequest {
  const auth = `Authorization: Bearer ${token}\r\n`;
  const host = `Host: 127.0.0.1:${port}\r\n`;
  const line = '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","pid":7}\n';
  const post = (headers: string, body: string): string =>
    `POST /v1/telemetry/ingest?format=native HTTP/1.1\r\n${host}${auth}Content-Type: application/x-ndjson\r\n${headers}\r\n${body}`;
  const text = rng.pick([
    post(`Content-Length: ${line.length + 100}\r\n`, line), // says more than it sends
    post('Content-Length: abc\r\n', line),
    post('Content-Length: -1\r\n', line),
    post(`Content-Length: ${line.length}\r\nContent-Length: 3\r\n`, line),
    post(`Content-Length: ${line.length}, ${line.length}\r\n`, line),
    post(`Content-Length: ${line.length}\r\nTransfer-Encoding: chunked\r\n`, line),
    post('Transfer-Encoding: chunked\r\n', `${line.length.toString(16)}\r\n${line}\r\n0\r\n\r\n`), // valid chunked
    post('Transfer-Encoding: chunked\r\n', `zz\r\n${line}\r\n0\r\n\r\n`),
    post('Transfer-Encoding: chunked\r\n', `ffffffffffffffff\r\n${line}\r\n`),
    post('Transfer-Encoding: gzip, chunked\r\n', `${line.length.toString(16)}\r\n${line}\r\n0\r\n\r\n`),
    post(`Expect: 100-continue\r\nContent-Length: ${line.length}\r\n`, line),
    post(`Content-Length: 99999999999999999999\r\n`, line),
    `GET /v1/graph/keys HTTP/1.0\r\n${auth}\r\n`,
    `GET /v1/graph/keys\r\n${auth}\r\n`,
    `GET http://127.0.0.1:${port}/v1/graph/keys HTTP/1.1\r\n${host}${auth}\r\n`,
    `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
    `get /v1/graph/keys http/1.1\r\n${host}${auth}\r\n`,
    `GET /v1/graph/keys HTTP/1.1\n${host.replace('\r', '')}${auth.replace('\r', '')}\n`, // bare LF
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}X-No-Colon\r\n\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}X-Folded: a\r\n b\r\n\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}Bad Name: x\r\n\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}X-Nul: a\u0000b\r\n\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}X-Long: ${'v'.repeat(100_000)}\r\n\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}${'X-Many: 1\r\n'.repeat(2000)}\r\n`,
    `GET /v1/graph/keys HTTP/1.1\r\n${auth}\r\n`, // no Host
    `GET /v1/live HTTP/1.1\r\n${host}\r\n`.repeat(3) + `GET /v1/graph/keys HTTP/1.1\r\n${host}${auth}\r\n`, // pipelined
    '\r\n\r\n',
    'GET / HTTP/1.1\r\n' + host, // never ends its head
    '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003', // a TLS ClientHello to a plain port
  ]);
  return { method: 'RAW', target: '(raw)', headers: [], raw: Buffer.from(text, 'latin1') };
}
