import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { request, withBodyType } from '../support/http.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';

const fixture = (name: string): string => readFileSync(join(packageRoot, 'test', 'fixtures', name), 'utf8');

describe('POST /v1/telemetry/ingest', function () {
  const daemons = useDaemonFixture();
  // tests that read only their own answers (or counts they take before and after) share one daemon
  const shared = useSharedDaemon();

  it('accepts good lines and reports each bad line by number without failing the batch', async function () {
    const daemon = shared.daemon;
    const body = [
      nativeLine(),
      '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z"', // truncated
      nativeLine({ pid: 'forty-two' }),
      '[1,2,3]',
      nativeLine({ timestamp: '2026-01-01 00:00:02.5+02:00' }),
      nativeLine({ run_id: 'run-i-made-up' }),
      nativeLine({ event_type: 'teleport' }),
      nativeLine({ timestamp: '2026-13-01T00:00:00Z' }),
      '',
      nativeLine({ event_type: 'dns', query: 'example.com' }),
    ].join('\n');
    const { status, body: answer } = await ingest(daemon.url, body, 'native');
    assert.equal(status, 200);
    assert.equal(answer['accepted'], 3);
    assert.equal(answer['rejected'], 6);
    const errors = answer['errors'] as { line: number; code: string }[];
    assert.deepEqual(
      errors.map((e) => [e.line, e.code]),
      [
        [2, 'invalid_json'],
        [3, 'wrong_type'],
        [4, 'not_an_object'],
        [6, 'context_not_allowed'],
        [7, 'unknown_type'],
        [8, 'invalid_time'],
      ],
    );
  });

  it('ingests the sample exports of other systems with the format detected per line', async function () {
    const daemon = shared.daemon;
    const expected: Record<string, number> = {
      'falco-risk-events.jsonl': 4,
      'native-ebpf-events.jsonl': 4,
      'llm-causal-events.jsonl': 4,
      'supply-chain-exfil.jsonl': 7,
      'tetragon-docs-events.jsonl': 5,
      // these lines carry no capture time: kept, timed at ingest and marked so
      'falco-network-connect.jsonl': 1,
      'loongcollector-file-write.jsonl': 1,
      'tetragon-process-exec.jsonl': 1,
    };
    for (const [name, accepted] of Object.entries(expected)) {
      const { status, body } = await ingest(daemon.url, fixture(name));
      assert.equal(status, 200, name);
      assert.equal(body['accepted'], accepted, name);
      assert.equal(body['rejected'], 0, name);
    }
  });

  it('times a line without capture time at ingest, marks it, and counts it', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-t', tool_call_id: 'tc', container_id: 'agentprov-demo-container' });
    const before = Date.now();
    const { body } = await ingest(daemon.url, fixture('tetragon-process-exec.jsonl'));
    assert.equal(body['accepted'], 1);
    const [event] = await pageAll(daemon.url, 'run=run-t');
    assert.equal((event!['attrs'] as Record<string, unknown>)['time_source'], 'ingested');
    assert.ok(Date.parse(event!['time'] as string) >= before - 1000);
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.equal(
      (producer['sources'] as Record<string, Record<string, number>>)['tetragon']?.['no_capture_time'],
      1,
    );
  });

  it('releases every in-flight byte once requests of any size are answered', async function () {
    const daemon = shared.daemon;
    for (const lines of [1, 100, 5000, 30_000]) {
      const body = Array.from({ length: lines }, (_, i) => nativeLine({ pid: i + 1 })).join('\n');
      assert.equal((await ingest(daemon.url, body, 'native')).status, 200);
    }
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.equal((producer['disk_buffering'] as Record<string, number>)['ingest_in_flight_bytes'], 0);
  });

  it('counts every rejection by reason in producer health, past the 100 listed in the answer', async function () {
    const daemon = shared.daemon;
    // the shared daemon counted the other tests' rejections: this body's are what it adds
    const drops = async (): Promise<{ invalid: number; invalid_by_reason: Record<string, number> }> =>
      (await request(daemon.url, '/v1/telemetry/producer-health')).body['drops'] as {
        invalid: number;
        invalid_by_reason: Record<string, number>;
      };
    const before = await drops();
    const lines = [
      ...Array.from({ length: 150 }, () => '{broken'),
      ...Array.from({ length: 20 }, () => '[]'),
      nativeLine(),
    ];
    const { body } = await ingest(daemon.url, lines.join('\n'), 'native');
    assert.equal(body['rejected'], 170);
    assert.equal((body['errors'] as unknown[]).length, 100);
    assert.equal(body['errors_truncated'], true);
    const after = await drops();
    assert.equal(after.invalid - before.invalid, 170);
    // every reason's count grew by this body's rejections of it, and no other's
    const added: Record<string, number> = {};
    for (const [reason, count] of Object.entries(after.invalid_by_reason)) {
      const grown = count - (before.invalid_by_reason[reason] ?? 0);
      if (grown !== 0) added[reason] = grown;
    }
    assert.deepEqual(added, { invalid_json: 150, not_an_object: 20 });
  });

  it('answers 400 naming the parameter for an unknown format', async function () {
    const daemon = shared.daemon;
    const { status, body } = await ingest(daemon.url, nativeLine(), 'xml');
    assert.equal(status, 400);
    assert.match((body['error'] as { message: string }).message, /^format must be one of/);
  });

  it('rejects invalid UTF-8 and over-long lines and keeps the lines around them', async function () {
    const daemon = shared.daemon;
    const good = Buffer.from(nativeLine() + '\n');
    const bad = Buffer.concat([
      Buffer.from('{"event_type":"execve","comm":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
    ]);
    const long = Buffer.from(JSON.stringify({ event_type: 'execve', pad: 'x'.repeat(1024 * 1024) }) + '\n');
    const body = Buffer.concat([good, bad, good, long, good]);
    const answer = await request(daemon.url, '/v1/telemetry/ingest?format=native', { method: 'POST', body });
    assert.equal(answer.status, 200);
    assert.equal(answer.body['accepted'], 3);
    const errors = answer.body['errors'] as { line: number; code: string }[];
    assert.deepEqual(
      errors.map((e) => [e.line, e.code]),
      [
        [2, 'invalid_utf8'],
        [4, 'line_too_long'],
      ],
    );
  });

  it('numbers error lines across a body big enough to be split between workers', async function () {
    const daemon = shared.daemon;
    const lines = Array.from({ length: 30_000 }, (_, i) => nativeLine({ pid: i + 1 }));
    lines[25_000] = '{broken';
    const { body } = await ingest(daemon.url, lines.join('\n'), 'native');
    assert.equal(body['accepted'], 29_999);
    assert.deepEqual(body['errors'], [
      { line: 25_001, code: 'invalid_json', message: (body['errors'] as { message: string }[])[0]!.message },
    ]);
  });

  it('keeps every accepted event after kill -9 right after the answer', async function () {
    const first = await daemons.start();
    await bind(first.url, { run_id: 'run-k', tool_call_id: 'tc', cgroup_id: '777' });
    const lines = Array.from({ length: 5000 }, (_, i) => nativeLine({ pid: i + 1 }));
    const { body } = await ingest(first.url, lines.join('\n'), 'native');
    assert.equal(body['accepted'], 5000);
    assert.equal(await first.stop('SIGKILL'), null);
    const second = await daemons.start();
    assert.equal((await pageAll(second.url, 'run=run-k')).length, 5000);
  });

  it('answers 429 with Retry-After under a flood instead of queueing without bound', async function () {
    const daemon = await daemons.start({ args: ['--max-ingest-queue-bytes', '300000'] });
    const body = Array.from({ length: 2000 }, (_, i) => nativeLine({ pid: i + 1 })).join('\n'); // ~200 kB
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        fetch(daemon.url + '/v1/telemetry/ingest?format=native', {
          method: 'POST',
          headers: withBodyType('/v1/telemetry/ingest'),
          body,
        }).then(async (response) => ({
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: (await response.json()) as Record<string, unknown>,
        })),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    const accepted = answers.filter((answer) => answer.status === 200);
    assert.ok(refused.length > 0, 'some requests are refused while the queue is full');
    assert.ok(accepted.length > 0, 'the queue still makes progress');
    for (const answer of refused) {
      assert.equal(answer.retryAfter, '1');
      assert.equal((answer.body['error'] as { code: string }).code, 'backpressure');
    }
    assert.equal(accepted.length + refused.length, 16);
  });
});
