// A run verified while an ingest commit is under way: the commit ends after verify asked for its
// sealing round and before its snapshot began. Seen in the README quickstart with the sensor on
// (`provd verify hello` right after `provd record`: failed, 34 unsealed_event, ok after a restart).
import assert from 'node:assert/strict';
import { awaitLogged, useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, nativeLine } from '../support/telemetry.js';

function ingest(url: string, comm: string, count: number): ReturnType<typeof request> {
  const lines = Array.from({ length: count }, (_v, i) => nativeLine({ comm, tgid: 2000 + i }));
  return request(url, '/v1/telemetry/ingest?format=native', { method: 'POST', body: lines.join('\n') });
}

describe('verify of a run while a commit is under way', function () {
  const daemons = useDaemonFixture();

  it('seals the events of a commit that ends while verify runs, never calling them unsealed', async function () {
    // every commit waits 1.5 s before its COMMIT; verify waits 3 s between its sealing round and
    // its snapshot, so the commit under way when verify asks ends inside that pause
    const daemon = await daemons.start({
      env: { PROVD_FAULT_COMMIT_STALL_MS: '1500', PROVD_FAULT_VERIFY_PAUSE_MS: '3000' },
    });
    await bind(daemon.url, { run_id: 'run-inflight', tool_call_id: 'tc', cgroup_id: '777' });
    assert.equal((await ingest(daemon.url, 'first', 5)).status, 200);
    // a sealing round has covered every write so far (the checkpoint waits for one)
    const checkpoint = await request(daemon.url, '/v1/graph/checkpoint?run=run-inflight');
    assert.equal(checkpoint.status, 200, JSON.stringify(checkpoint.body));
    const stalls = daemon.logs.filter((entry) => entry['msg'] === 'fault: a commit stalls').length;
    const committing = ingest(daemon.url, 'second', 5);
    await awaitLogged(daemon, 'fault: a commit stalls', stalls + 1); // under way, not yet committed
    const verified = await request(daemon.url, '/v1/graph/verify?run=run-inflight');
    assert.equal((await committing).status, 200);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepEqual(
      [verified.body['status'], verified.body['issues']],
      ['ok', []],
      JSON.stringify(verified.body),
    );
    // and the events verify read were all of both commits, sealed
    const again = await request(daemon.url, '/v1/graph/verify?run=run-inflight');
    assert.equal(again.body['status'], 'ok', JSON.stringify(again.body));
  });
});
