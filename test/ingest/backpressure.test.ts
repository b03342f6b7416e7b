import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';

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

/** POSTs over a kept-alive socket of `agent` with a Content-Length, as provd ingest and most clients do. */
function post(agent: Agent, url: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
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
    req.end(body);
  });
}

describe('ingest under a flood of large bodies', function () {
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
});
