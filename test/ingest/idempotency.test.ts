import assert from 'node:assert/strict';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { request, type JsonAnswer } from '../support/http.js';
import { bind, nativeLine, pageAll } from '../support/telemetry.js';

const lines = (comm: string, count: number, cgroup = '777'): string =>
  Array.from({ length: count }, (_v, i) => nativeLine({ comm, tgid: 2000 + i, cgroup_id: cgroup })).join(
    '\n',
  );

function post(url: string, text: string, key?: string, format = 'native'): Promise<JsonAnswer> {
  const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
  return request(url, `/v1/telemetry/ingest?format=${format}`, { method: 'POST', body: text, headers });
}

describe('Idempotency-Key on ingest', function () {
  const daemons = useDaemonFixture();
  // the tests that read back only their own run (its own cgroup and keys) share one daemon
  const shared = useSharedDaemon();

  it('answers a resend with the first answer, says so, and stores the events once', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-idem', tool_call_id: 'tc', cgroup_id: 'cg-idem' });
    const text = lines('once', 40, 'cg-idem') + '\n{"broken"';
    const first = await post(daemon.url, text, 'chunk-0001');
    const again = await post(daemon.url, text, 'chunk-0001');
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the same batch id, counts and line errors');
    assert.equal((await pageAll(daemon.url, 'run=run-idem')).length, 40);
  });

  it('stores once when the same key and body arrive at the same time', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-race', tool_call_id: 'tc', cgroup_id: 'cg-race' });
    const text = lines('race', 30, 'cg-race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(daemon.url, text, 'same-key')));
    for (const answer of answers) assert.equal(answer.status, 200);
    assert.equal(new Set(answers.map((answer) => answer.body['batch_id'])).size, 1);
    assert.equal(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null).length, 1);
    assert.equal((await pageAll(daemon.url, 'run=run-race')).length, 30);
  });

  it('refuses a key reused with another body or another format with 422, storing nothing more', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-reuse', tool_call_id: 'tc', cgroup_id: 'cg-reuse' });
    assert.equal((await post(daemon.url, lines('a', 5, 'cg-reuse'), 'k-1')).status, 200);
    for (const [text, format] of [
      [lines('b', 5, 'cg-reuse'), 'native'],
      [lines('a', 5, 'cg-reuse'), 'auto'],
    ] as const) {
      const answer = await post(daemon.url, text, 'k-1', format);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal((answer.body['error'] as { code: string }).code, 'idempotency_key_reused');
    }
    assert.equal((await pageAll(daemon.url, 'run=run-reuse')).length, 5);
  });

  it('refuses a malformed key with 400 naming the header', async function () {
    const { daemon } = shared;
    for (const key of ['has space', 'x'.repeat(256), 'tab\tkey']) {
      const answer = await post(daemon.url, lines('k', 1), key);
      assert.equal(answer.status, 400, key);
      assert.match((answer.body['error'] as { message: string }).message, /^idempotency-key must be /);
    }
  });

  it('answers the first outcome after the daemon died between its commit and its answer', async function () {
    const crashing = await daemons.start({ env: { PROVD_FAULT_KILL_AFTER_COMMIT: '1' } });
    const text = lines('crash', 50);
    await assert.rejects(post(crashing.url, text, 'before-crash'), 'the connection dies without an answer');
    assert.equal(await crashing.stop(), null, 'killed by SIGKILL');

    const daemon = await daemons.start();
    const resent = await post(daemon.url, text, 'before-crash');
    assert.equal(resent.status, 200);
    assert.equal(resent.headers.get('idempotent-replayed'), 'true', 'the commit had landed');
    assert.equal(resent.body['accepted'], 50);
    await bind(daemon.url, { run_id: 'run-crash', tool_call_id: 'tc', cgroup_id: '777' });
    assert.equal((await pageAll(daemon.url, 'run=run-crash')).length, 50, 'stored once');
  });
});
