import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';
import { RawConnection } from '../support/raw-http.js';
import { eventually } from '../support/eventually.js';

const mib = 1024 * 1024;
const requests = 40;
const concurrency = 20;

/** About `bytes` of native NDJSON, one distinct comm per line. */
function ndjson(bytes: number): { body: Buffer; lines: number } {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = nativeLine({ comm: `c${lines.length}` }) + '\n';
    lines.push(line);
    size += line.length;
  }
  return { body: Buffer.from(lines.join('')), lines: lines.length };
}

/** What the client read back; a request with no readable answer rejects (EPIPE, ECONNRESET). */
interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
}

/** Opens a POST with a Content-Length over a socket of `agent`; the caller writes the body. */
function openPost(agent: Agent, url: string, body: Buffer): { req: ClientRequest; answer: Promise<Answer> } {
  let req!: ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = httpRequest(
      `${url}/v1/telemetry/ingest?format=native`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            body: JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
  });
  return { req, answer };
}

/** POSTs over a kept-alive socket of `agent` with a Content-Length, as provd ingest and most clients do. */
function post(agent: Agent, url: string, body: Buffer): Promise<Answer> {
  const { req, answer } = openPost(agent, url, body);
  req.end(body);
  return answer;
}

/** Starts a POST and sends half its body; the rest goes when `finish` is called. */
function postHalf(url: string, body: Buffer): { answer: Promise<Answer>; finish: () => void } {
  const { req, answer } = openPost(new Agent({ keepAlive: false }), url, body);
  req.write(body.subarray(0, body.length >> 1));
  return { answer, finish: () => req.end(body.subarray(body.length >> 1)) };
}

async function inFlightBytes(url: string): Promise<number> {
  const health = await request(url, '/v1/telemetry/producer-health');
  return (health.body['disk_buffering'] as Record<string, number>)['ingest_in_flight_bytes'] ?? 0;
}

describe('ingest backpressure', function () {
  const daemons = useDaemonFixture();

  it('answers every request 200 or 429 with Retry-After, and stores exactly what it accepted', async function () {
    this.timeout(120_000);
    // room for about two bodies: most of the flood is refused as it arrives
    const daemon = await daemons.start({ args: ['--max-ingest-queue-bytes', String(10 * mib)] });
    const { body, lines } = ndjson(4 * mib);
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const answers: Answer[] = [];
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < requests) answers.push(await post(agent, daemon.url, body));
        }),
      );
    } finally {
      agent.destroy();
    }
    assert.equal(answers.length, requests, 'every request was answered');
    let accepted = 0;
    for (const answer of answers) {
      if (answer.status === 200) {
        assert.equal(answer.body['accepted'], lines);
        accepted += lines;
        continue;
      }
      assert.equal(answer.status, 429, JSON.stringify(answer.body));
      assert.equal(answer.retryAfter, '1');
      assert.equal((answer.body['error'] as Record<string, unknown>)['code'], 'backpressure');
    }
    const refused = answers.filter((answer) => answer.status === 429).length;
    assert.ok(
      accepted > 0 && refused > 0,
      `both outcomes happen: ${accepted / lines} stored, ${refused} refused`,
    );

    const health = await request(daemon.url, '/v1/telemetry/producer-health');
    const sources = health.body['sources'] as Record<string, Record<string, number>>;
    assert.equal(
      sources['native_jsonl']?.['accepted'],
      accepted,
      'the store holds exactly the accepted events',
    );
    const buffering = health.body['disk_buffering'] as Record<string, number>;
    assert.equal(buffering['ingest_refused_requests'], refused, 'every 429 is counted');
    assert.equal(buffering['ingest_in_flight_bytes'], 0, 'every reserved byte is given back');
  });

  it('refuses new bodies with 429 while resident memory is past --max-memory-bytes, and always lets one in', async function () {
    // every daemon's resident memory is above 1 byte: only the one body held alone gets in
    const daemon = await daemons.start({ args: ['--max-memory-bytes', '1'] });
    const { body, lines } = ndjson(64 * 1024);
    const first = postHalf(daemon.url, body);
    await eventually(
      'the first body held',
      () => inFlightBytes(daemon.url),
      (bytes) => bytes > 0,
    );

    const agent = new Agent({ keepAlive: true });
    try {
      const refused = await post(agent, daemon.url, body);
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.retryAfter, '1');
      const error = refused.body['error'] as Record<string, unknown>;
      assert.equal(error['code'], 'backpressure');
      assert.match(String(error['message']), /resident memory \d+ bytes exceeds 1\b/);

      first.finish();
      assert.equal((await first.answer).status, 200, 'the body let in alone is stored');
      const alone = await post(agent, daemon.url, body);
      assert.equal(alone.status, 200, 'with nothing held, a body is let in again');
      assert.equal(alone.body['accepted'], lines);
    } finally {
      agent.destroy();
    }
    const health = await request(daemon.url, '/v1/telemetry/producer-health');
    const buffering = health.body['disk_buffering'] as Record<string, number>;
    assert.equal(buffering['ingest_refused_requests'], 1, 'the 429 is counted');
    assert.equal(buffering['ingest_in_flight_bytes'], 0);
  });

  it('counts body bytes as they arrive: idle connections that declare 64 MiB and send a byte do not lock ingest out', async function () {
    const daemon = await daemons.start(); // the default budget: 256 MiB, four such declarations
    const head =
      `POST /v1/telemetry/ingest?format=native HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Content-Type: application/x-ndjson\r\nContent-Length: ${64 * mib}\r\n\r\n{`;
    const idle = await Promise.all(Array.from({ length: 5 }, () => RawConnection.open(daemon.port)));
    try {
      for (const connection of idle) connection.send(head);
      await eventually(
        'a byte held for each',
        () => inFlightBytes(daemon.url),
        (bytes) => bytes >= idle.length,
      );
      assert.equal(
        await inFlightBytes(daemon.url),
        idle.length,
        'a byte held for each, not what they declared',
      );
      const { body, lines } = ndjson(64 * 1024);
      const agent = new Agent({ keepAlive: false });
      const answer = await post(agent, daemon.url, body);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body['accepted'], lines);
    } finally {
      for (const connection of idle) connection.close();
    }
    await eventually(
      'every byte given back',
      () => inFlightBytes(daemon.url),
      (bytes) => bytes === 0,
    );
  });
});
