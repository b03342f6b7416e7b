import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, nativeLine, pageAll } from '../support/telemetry.js';

const requests = 24;
const goodPerRequest = 120;

/** Lines every request carries that no column can hold, or that are no events at all. */
const hostile = [
  nativeLine({ pid: 4_294_967_296 }),
  nativeLine({ timestamp: '3000-01-01T00:00:00Z' }),
  '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","comm":"x\\udc00"}',
  '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z"', // truncated
  '\u0000\u0001not json',
  nativeLine({ run_id: 'forged' }),
];

/** Request `r`: good lines (comm names the line) with the hostile ones spread among them. */
function body(r: number): string {
  const lines: string[] = [];
  for (let i = 0; i < goodPerRequest; i++) {
    // the good lines include values at the edges that must be kept exactly
    const edge = i % 40 === 0 ? { comm: `\ufeffr${r}-l${i}`, pid: 4_294_967_295 } : { comm: `r${r}-l${i}` };
    lines.push(nativeLine(edge));
    if (i % 20 === 0) lines.push(hostile[(r + i / 20) % hostile.length]!);
  }
  return lines.join('\n');
}

describe('an ingest flood with hostile lines mixed in', function () {
  const daemons = useDaemonFixture();

  it('answers every request 200, reports each bad line, and stores each good line exactly once', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-flood', tool_call_id: 'tc', cgroup_id: '777' });
    const answers = await Promise.all(
      Array.from({ length: requests }, (_v, r) =>
        request(daemon.url, '/v1/telemetry/ingest?format=native', {
          method: 'POST',
          body: body(r),
          headers: { 'idempotency-key': `flood-${r}` },
        }),
      ),
    );
    for (const [r, answer] of answers.entries()) {
      assert.equal(answer.status, 200, `request ${r}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body['accepted'], goodPerRequest, `request ${r}`);
      assert.equal(answer.body['rejected'], goodPerRequest / 20, `request ${r}`);
    }
    const events = await pageAll(daemon.url, 'run=run-flood');
    const comms = events.map((event) => event['comm'] as string);
    assert.equal(comms.length, requests * goodPerRequest);
    assert.equal(new Set(comms).size, comms.length, 'no line stored twice');
    for (let r = 0; r < requests; r++)
      for (let i = 0; i < goodPerRequest; i++) {
        const comm = i % 40 === 0 ? `\ufeffr${r}-l${i}` : `r${r}-l${i}`;
        assert.ok(comms.includes(comm), `line ${i} of request ${r} is stored as sent`);
      }
  });
});
