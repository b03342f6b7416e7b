import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assertStopsCleanly, awaitLogged, useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** Host rounds every 200 ms (the daemon's own: a minute). */
const fastRounds = { PROVD_FAULT_HOST_ROUND_MS: '200' };
/** No host round within a test: nothing signs the host digests. */
const noRounds = { PROVD_FAULT_HOST_ROUND_MS: '3600000' };

function lines(count: number, cgroup: string, timestamp = new Date().toISOString()): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp, cgroup_id: cgroup, comm: `k${i}`, pid: 7300 + i }),
  ).join('\n');
}

async function verify(daemon: RunningDaemon, path: string): Promise<Record<string, unknown>> {
  const { status, body } = await request(daemon.url, path);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

function kinds(body: Record<string, unknown>): string[] {
  return (body['issues'] as { kind: string }[]).map((issue) => issue.kind).sort();
}

function fullVerifications(daemon: RunningDaemon): number {
  return daemon.logs.filter((entry) => entry['msg'] === 'host events verified in full').length;
}

function unsealed(body: Record<string, unknown>): number {
  return (body['issues'] as { kind: string }[]).filter((issue) => issue.kind === 'unsealed_event').length;
}

async function hostVerification(daemon: RunningDaemon): Promise<Record<string, unknown>> {
  const body = await verify(daemon, '/v1/telemetry/producer-health');
  return body['host_verification'] as Record<string, unknown>;
}

describe('verify answers from what it kept only while nothing changed', function () {
  const fixture = useDaemonFixture();
  const anchorFile = (): string => join(fixture.dataDir, 'host-chain-anchor.log');

  it('sees host events committed after an answer it kept', async function () {
    const daemon = await fixture.start({ env: noRounds });
    assert.deepEqual(kinds(await verify(daemon, '/v1/graph/verify-host')), []);
    assert.equal((await ingest(daemon.url, lines(3, '931'), 'native')).status, 200);
    // the kept answer (nothing to sign) no longer holds: a digest nobody signed is there now
    assert.deepEqual(kinds(await verify(daemon, '/v1/graph/verify-host')), ['host_unsigned']);
    await assertStopsCleanly(daemon);
  });

  it('sees the anchor file deleted behind its back after an answer it kept', async function () {
    const daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    assert.equal((await ingest(daemon.url, lines(3, '932'), 'native')).status, 200);
    await eventually(
      'the batch signed and anchored',
      () => (existsSync(anchorFile()) ? readFileSync(anchorFile(), 'utf8').length : 0),
      (bytes) => bytes > 0,
    );
    const before = await verify(daemon, '/v1/graph/verify-host');
    assert.equal(before['status'], 'ok', JSON.stringify(before));
    rmSync(anchorFile());
    const after = await verify(daemon, '/v1/graph/verify-host');
    assert.equal(after['status'], 'failed', JSON.stringify(after));
    assert.ok(kinds(after).includes('host_anchor_missing'), JSON.stringify(after));
  });

  it('sees what a host round removed after an answer it kept', async function () {
    const daemon = await fixture.start({
      args: ['--spool-ttl', '100ms', '--retain-host-events-age', '1d'],
      env: fastRounds,
    });
    assert.equal((await ingest(daemon.url, lines(2, '933', '2020-01-01T00:00:01Z'), 'native')).status, 200);
    // kept answers meanwhile; a round that removes must make the next one new
    await eventually(
      'the old batch removed on record',
      async () => kinds(await verify(daemon, '/v1/graph/verify-host')),
      (found) => found.includes('host_events_retained'),
    );
    await assertStopsCleanly(daemon);
  });

  it('verifies once for concurrent calls, and again in full when asked, counting each in producer health', async function () {
    let daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    assert.equal((await ingest(daemon.url, lines(5, '934'), 'native')).status, 200);
    await eventually(
      'the batch signed',
      async () => kinds(await verify(daemon, '/v1/graph/verify-host')),
      (found) => found.length === 0,
    );
    await assertStopsCleanly(daemon);
    daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    // the first call of the daemon before verified everything: on record in the store
    assert.equal((await hostVerification(daemon))['full_verifications'], 1);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => request(daemon.url, '/v1/graph/verify-host')),
    );
    for (const answer of answers) assert.deepEqual(answer.body, answers[0]!.body);
    assert.equal(answers[0]!.body['status'], 'ok', JSON.stringify(answers[0]!.body));
    await awaitLogged(daemon, 'host events verified in full');
    assert.equal(fullVerifications(daemon), 1, 'eight calls at once: one verification');
    const full = await verify(daemon, '/v1/graph/verify-host?full=true');
    assert.deepEqual(full, answers[0]!.body);
    assert.equal(fullVerifications(daemon), 2);
    const counted = await hostVerification(daemon);
    assert.equal(counted['full_verifications'], 3);
    assert.ok(Date.parse(counted['last_full_at'] as string) > Date.now() - 60_000, JSON.stringify(counted));
    assert.equal(typeof counted['last_full_ms'], 'number');
    await assertStopsCleanly(daemon);
  });

  it('verifies every host event again in the background, as often as --verify-host-full-every says', async function () {
    const daemon = await fixture.start({ args: ['--verify-host-full-every', '300ms'], env: fastRounds });
    assert.equal((await ingest(daemon.url, lines(3, '935'), 'native')).status, 200);
    // nobody calls verify-host
    await awaitLogged(daemon, 'host events verified in full', 2);
    assert.ok(((await hostVerification(daemon))['full_verifications'] as number) >= 2);
    await assertStopsCleanly(daemon);
  });

  it("sees a run's events committed after an answer it kept, and answers concurrent calls alike", async function () {
    // unsealed, every event of the run is an error: their count shows what the answer saw
    const daemon = await fixture.start({ env: { PROVD_FAULT_NO_SEALING: '1' } });
    await bind(daemon.url, { run_id: 'kept-run', tool_call_id: 't1', cgroup_id: '936' });
    assert.equal((await ingest(daemon.url, lines(3, '936'), 'native')).status, 200);
    const first = await verify(daemon, '/v1/graph/verify?run=kept-run');
    assert.equal(unsealed(first), 3, JSON.stringify(first));
    assert.deepEqual(await verify(daemon, '/v1/graph/verify?run=kept-run'), first);
    assert.equal((await ingest(daemon.url, lines(2, '936'), 'native')).status, 200);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => request(daemon.url, '/v1/graph/verify?run=kept-run')),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, answers[0]!.body);
    }
    assert.equal(unsealed(answers[0]!.body), 5, JSON.stringify(answers[0]!.body));
    await assertStopsCleanly(daemon);
  });
});
