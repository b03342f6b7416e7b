import assert from 'node:assert/strict';
import { useDaemonFixture, assertStopsCleanly, awaitLogged } from '../support/daemon.js';
import { request, type JsonAnswer } from '../support/http.js';
import { bind, nativeLine, pageAll } from '../support/telemetry.js';

/** A body of `count` native lines whose comm names the request, so its events can be counted. */
function body(name: string, count: number, extra: string[] = []): string {
  const lines = Array.from({ length: count }, (_v, i) => nativeLine({ comm: name, tgid: 1000 + i }));
  return [...lines, ...extra].join('\n');
}

function post(url: string, text: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return request(url, '/v1/telemetry/ingest?format=native', { method: 'POST', body: text, headers });
}

/** How many stored events of the run carry each comm. */
async function countByComm(url: string, run: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const event of await pageAll(url, `run=${run}`)) {
    const comm = event['comm'] as string;
    counts.set(comm, (counts.get(comm) ?? 0) + 1);
  }
  return counts;
}

describe('ingest commits', function () {
  const daemons = useDaemonFixture();

  it('commits each request of a failed group on its own, so a request the store refuses fails no other', async function () {
    // every commit waits 2 s before COMMIT; one line (comm "poison") gets a row the store refuses
    const daemon = await daemons.start({
      env: { PROVD_FAULT_COMMIT_STALL_MS: '2000', PROVD_FAULT_UNSTORABLE_COMM: 'poison' },
    });
    await bind(daemon.url, { run_id: 'run-iso', tool_call_id: 'tc', cgroup_id: '777' });
    // the first request holds the committer while the next three arrive and wait as one group
    const first = post(daemon.url, body('first', 20));
    await awaitLogged(daemon, 'fault: a commit stalls'); // it holds the committer
    const [good1, poisoned, good2] = await Promise.all([
      post(daemon.url, body('good1', 30)),
      post(daemon.url, body('poisoned', 30, [nativeLine({ comm: 'poison' })])),
      post(daemon.url, body('good2', 30)),
    ]);
    assert.equal((await first).status, 200);
    assert.equal(good1.status, 200, JSON.stringify(good1.body));
    assert.equal(good2.status, 200, JSON.stringify(good2.body));
    assert.equal(poisoned.status, 500, JSON.stringify(poisoned.body));
    assert.equal((poisoned.body['error'] as { code: string }).code, 'internal');
    assert.ok(
      daemon.logs.some(
        (entry) => entry['msg'] === 'a group commit failed: its requests are retried one by one',
      ),
      'the three requests were committed as one group first',
    );
    const counts = await countByComm(daemon.url, 'run-iso');
    assert.deepEqual(Object.fromEntries(counts), { first: 20, good1: 30, good2: 30 });
  });

  it('rolls a commit back when its deadline passes, answers 503, and stores nothing of it', async function () {
    const slow = await daemons.start({
      args: ['--ingest-timeout', '1s'],
      env: { PROVD_FAULT_COMMIT_STALL_MS: '3000' },
    });
    const key = { 'idempotency-key': 'late-1' };
    const late = await post(slow.url, body('late', 25), key);
    assert.equal(late.status, 503, JSON.stringify(late.body));
    assert.match(
      (late.body['error'] as { message: string }).message,
      /rolled back: nothing of the request was stored/,
    );
    // the rollback is answered, not guessed: after it, nothing of the request is in the store
    await bind(slow.url, { run_id: 'run-late', tool_call_id: 'tc', cgroup_id: '777' });
    assert.deepEqual(await pageAll(slow.url, 'run=run-late'), []);
    await assertStopsCleanly(slow);

    // the same request resent to a healthy daemon is stored, once
    const daemon = await daemons.start();
    const resent = await post(daemon.url, body('late', 25), key);
    assert.equal(resent.status, 200);
    assert.equal(
      resent.headers.get('idempotent-replayed'),
      null,
      'the first attempt stored nothing to replay',
    );
    assert.equal(resent.body['pending'], 0, 'the binding made before the restart places every event');
    const counts = await countByComm(daemon.url, 'run-late');
    assert.deepEqual(Object.fromEntries(counts), { late: 25 });
  });
});
