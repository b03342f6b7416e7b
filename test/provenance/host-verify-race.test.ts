import assert from 'node:assert/strict';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { ingest, nativeLine } from '../support/telemetry.js';

/** How many ingest-and-bind steps the stress runs (each with verify-host called alongside). */
const steps = Number(process.env['PROVD_STRESS_STEPS'] ?? '40');

/** `count` old host lines of cgroup `cgroup`: retention removes them once the spool gives up on them. */
function oldHostLines(count: number, cgroup: string): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp: '2020-01-01T00:00:01Z', cgroup_id: cgroup, comm: `s${i}`, pid: 6000 + i }),
  ).join('\n');
}

describe('verify-host under load', function () {
  const fixture = useDaemonFixture();

  it('never reports a failure on a store nobody touched, while rounds, ingest and bindings change it', async function () {
    this.timeout(Math.max(120_000, steps * 2000));
    // a round every 100 ms that removes every host batch the spool gave up on (200 ms): the host
    // chain and the digests change under verify all the time, as do the events bindings claim
    const daemon = await fixture.start({
      args: ['--spool-ttl', '200ms', '--retain-host-events-age', '1s'],
      env: { PROVD_FAULT_HOST_ROUND_MS: '100' },
    });
    let writing = true;
    const answers: Record<string, unknown>[] = [];
    const verifying = (async () => {
      while (writing) {
        const { status, body } = await request(daemon.url, '/v1/graph/verify-host');
        answers.push({ http: status, ...body });
      }
    })();
    try {
      for (let step = 0; step < steps; step++) {
        const cgroup = String(10_000 + step);
        assert.equal((await ingest(daemon.url, oldHostLines(3 + (step % 4), cgroup), 'native')).status, 200);
        // every other batch is claimed by a late binding before the spool gives up on it
        if (step % 2 === 0) {
          const bound = await request(daemon.url, '/v1/telemetry/bind', {
            method: 'POST',
            body: JSON.stringify({ run_id: `run-${step}`, tool_call_id: 'tc', cgroup_id: cgroup }),
          });
          assert.equal(bound.status, 200, JSON.stringify(bound.body));
        }
      }
    } finally {
      writing = false;
      await verifying;
    }
    const failed = answers.filter((body) => body['http'] !== 200 || body['status'] !== 'ok');
    assert.ok(answers.length > 0);
    // a long run (PROVD_STRESS_STEPS=1000) says how many verifications it saw
    if (process.env['PROVD_STRESS_STEPS'] !== undefined)
      console.log(`verify-host answered ${answers.length} times over ${steps} steps`);
    assert.deepEqual(failed, [], `${failed.length} of ${answers.length} answers failed`);
    await assertStopsCleanly(daemon);
  });
});
