import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  assertStopsCleanly,
  awaitLogged,
  useDaemonFixture,
  useStoredDataDir,
  type RunningDaemon,
} from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

const token = 'host-retention-token';
const auth = { authorization: `Bearer ${token}` };
/** Host rounds every 200 ms (the daemon's own: a minute), events unclaimed after 1 s. */
const fastRounds = { PROVD_FAULT_HOST_ROUND_MS: '200' };

/** `count` lines of a cgroup no binding names (host events), captured at `timestamp`. */
function hostLines(count: number, timestamp: string, cgroup = '999'): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp, cgroup_id: cgroup, comm: `h${i}`, pid: 5000 + i }),
  ).join('\n');
}

async function verifyHost(daemon: RunningDaemon): Promise<Record<string, unknown>> {
  const { status, body } = await request(daemon.url, '/v1/graph/verify-host', { headers: auth });
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

function kinds(body: Record<string, unknown>, severity: string): string[] {
  return (body['issues'] as { kind: string; severity: string }[])
    .filter((issue) => issue.severity === severity)
    .map((issue) => issue.kind)
    .sort();
}

async function metric(daemon: RunningDaemon, name: string): Promise<number> {
  const text = await (await fetch(`${daemon.url}/metrics`, { headers: auth })).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  assert.ok(line !== undefined, `${name} is exposed`);
  return Number(line.split(' ')[1]);
}

/** Host events: the rows with no run, as the stopped daemon stored them. */
async function hostRows(db: DuckDBConnection): Promise<Record<string, unknown>[]> {
  return queryRows(db, 'SELECT id, spool_state, seq FROM events WHERE run_id IS NULL ORDER BY seq');
}

describe('host event retention', function () {
  const fixture = useDaemonFixture();
  const dbPath = (): string => join(fixture.dataDir, 'provd.duckdb');

  const retainOptions = {
    authToken: token,
    args: ['--spool-ttl', '1s', '--retain-host-events-age', '1d'],
    env: fastRounds,
  };

  /**
   * Has `daemon` (started with retainOptions) make a store where age retention removed an old host
   * batch (3 events): a newer host batch (2 events) and an old run's events stay.
   */
  async function retainByAge(daemon: RunningDaemon): Promise<void> {
    await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-kept', tool_call_id: 'tc', cgroup_id: '777' }),
    });
    const post = (body: string) =>
      request(daemon.url, '/v1/telemetry/ingest?format=native', { method: 'POST', headers: auth, body });
    assert.equal((await post(hostLines(3, '2020-01-01T00:00:01Z'))).status, 200);
    assert.equal((await post(hostLines(2, new Date().toISOString()))).status, 200);
    // the run's events are as old as the removed ones: retention never touches a run
    assert.equal((await post(hostLines(2, '2020-01-01T00:00:05Z', '777'))).status, 200);
    await awaitLogged(daemon, 'host events retained');
    assert.equal(await metric(daemon, 'provd_host_events_retained_total'), 3);
    assert.equal(await metric(daemon, 'provd_host_batches_retained_total'), 1);
    const health = await request(daemon.url, '/v1/telemetry/producer-health', { headers: auth });
    assert.deepEqual(health.body['host_retention'], {
      retained_events: 3,
      retained_batches: 1,
      retained_bytes: (health.body['host_retention'] as { retained_bytes: number }).retained_bytes,
      refused_batches: 0,
    });
    assert.ok((health.body['host_retention'] as { retained_bytes: number }).retained_bytes > 3 * 96);
    const run = await request(daemon.url, '/v1/graph/verify?run=run-kept', { headers: auth });
    assert.equal(run.body['status'], 'ok', JSON.stringify(run.body));
    const events = await request(daemon.url, '/v1/telemetry/events?run=run-kept', { headers: auth });
    assert.equal(events.body['count'], 2);
    // the newer host batch is signed once it is unclaimed: verify-host ok, the removal a warning
    const body = await eventually(
      'the remaining host batch signed',
      () => verifyHost(daemon),
      (answer) => !kinds(answer, 'warning').includes('host_unsigned'),
    );
    assert.equal(body['status'], 'ok', JSON.stringify(body));
    assert.deepEqual(kinds(body, 'warning'), ['host_events_retained']);
  }

  /** That store, made once for the file: the tampering tests each copy it into their own data dir. */
  const retained = useStoredDataDir(retainByAge, retainOptions);

  it('removes host batches older than the age, on signed record, and leaves runs and newer host events', async function () {
    const daemon = await fixture.start(retainOptions);
    await retainByAge(daemon);
    await assertStopsCleanly(daemon);
    await withDatabase(dbPath(), async (db) => assert.equal((await hostRows(db)).length, 2));
  });

  it('keeps host events a binding may still claim (pending in the spool), however old', async function () {
    const daemon = await fixture.start({ args: ['--retain-host-events-age', '1s'], env: fastRounds });
    assert.equal((await ingest(daemon.url, hostLines(4, '2020-01-01T00:00:01Z'), 'native')).status, 200);
    // a round ran since (it signed the pending digest): still nothing removed
    const body = await eventually(
      'a host round',
      async () => (await request(daemon.url, '/v1/graph/verify-host')).body,
      (answer) => !kinds(answer, 'warning').includes('host_unsigned'),
    );
    assert.equal(body['status'], 'ok', JSON.stringify(body));
    assert.deepEqual(kinds(body, 'warning'), []);
    // a binding now claims them: they were kept for it
    await bind(daemon.url, { run_id: 'run-late', tool_call_id: 'tc', cgroup_id: '999' });
    const events = await eventually(
      'the late binding settled the spooled events',
      async () => (await request(daemon.url, '/v1/telemetry/events?run=run-late')).body,
      (answer) => answer['count'] === 4,
    );
    assert.equal(events['count'], 4);
    // the digest that sealed them lacks them now, and verify-host accepts it: a binding claimed them all
    const settled = (await request(daemon.url, '/v1/graph/verify-host')).body;
    assert.equal(settled['status'], 'ok', JSON.stringify(settled));
    assert.equal(await metric(daemon, 'provd_host_events_retained_total'), 0);
    await assertStopsCleanly(daemon);
  });

  it('removes a batch committed since the last host checkpoint, on record though it was never signed', async function () {
    // rounds 2 s apart, events unclaimed within one: the old batch is first seen by the round that removes it
    const daemon = await fixture.start({
      args: ['--spool-ttl', '100ms', '--retain-host-events-age', '1d'],
      env: { PROVD_FAULT_HOST_ROUND_MS: '2000' },
    });
    assert.equal((await ingest(daemon.url, hostLines(2, new Date().toISOString()), 'native')).status, 200);
    await eventually(
      'the recent batch signed',
      async () => (await request(daemon.url, '/v1/graph/verify-host')).body,
      (answer) => !kinds(answer, 'warning').includes('host_unsigned'),
    );
    assert.equal(
      (await ingest(daemon.url, hostLines(3, '2020-01-01T00:00:01Z', '998'), 'native')).status,
      200,
    );
    await awaitLogged(daemon, 'host events retained');
    const body = (await request(daemon.url, '/v1/graph/verify-host')).body;
    assert.equal(body['status'], 'ok', JSON.stringify(body));
    assert.deepEqual(kinds(body, 'warning'), ['host_events_retained']);
    assert.equal(await metric(daemon, 'provd_host_events_retained_total'), 3);
    await assertStopsCleanly(daemon);
  });

  it('removes the oldest whole host batches while host events exceed the size bound', async function () {
    // rows of these lines are estimated at about 130 bytes: 5 + 1 exceed 400, the newest one alone does not
    const daemon = await fixture.start({
      args: ['--spool-ttl', '1s', '--retain-host-events-bytes', '400'],
      env: fastRounds,
    });
    const now = new Date().toISOString();
    assert.equal((await ingest(daemon.url, hostLines(5, now), 'native')).status, 200);
    assert.equal((await ingest(daemon.url, hostLines(1, now, '998'), 'native')).status, 200);
    await awaitLogged(daemon, 'host events retained');
    assert.equal(await metric(daemon, 'provd_host_events_retained_total'), 5);
    const body = await eventually(
      'verify-host after the removal',
      async () => (await request(daemon.url, '/v1/graph/verify-host')).body,
      (answer) => kinds(answer, 'warning').includes('host_events_retained'),
    );
    assert.equal(body['status'], 'ok', JSON.stringify(body));
    await assertStopsCleanly(daemon);
    await withDatabase(dbPath(), async (db) => {
      const rows = await hostRows(db);
      assert.deepEqual(
        rows.map((row) => row['id']).length,
        1,
        'the newest batch stays: the bound is met without it',
      );
    });
  });

  /** Tampers with the stopped store after retention, restarts it, and returns verify-host's answer. */
  async function afterTampering(
    tamper: (db: DuckDBConnection) => Promise<unknown>,
    digestsChanged = false,
  ): Promise<Record<string, unknown>> {
    retained.copyInto(fixture.dataDir);
    await withDatabase(dbPath(), tamper);
    const daemon = await fixture.start({ authToken: token, env: fastRounds });
    // a round that finds the signed digests changed refuses to sign over them (and to remove anything)
    if (digestsChanged) {
      const failed = 'a host round failed; the next round tries again';
      await awaitLogged(daemon, failed);
      const entry = daemon.logs.find((line) => line['msg'] === failed);
      assert.equal(
        (entry?.['error'] as { code?: string } | undefined)?.code,
        'PROVD_ERR_HOST_CHAIN_DIVERGED',
      );
    }
    const body = await verifyHost(daemon);
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    return body;
  }

  it('fails verify-host when a remaining host event is edited', async function () {
    const body = await afterTampering((db) =>
      db.run(`UPDATE events SET comm = 'forged' WHERE run_id IS NULL AND comm = 'h0'`),
    );
    assert.ok(kinds(body, 'error').includes('event_hash_mismatch'), JSON.stringify(body));
  });

  it('fails verify-host when a host batch is deleted with no retention record, and signs nothing over it', async function () {
    const body = await afterTampering(async (db) => {
      await db.run('DELETE FROM events WHERE run_id IS NULL');
      await db.run('DELETE FROM event_batches WHERE run_id IS NULL');
    }, true);
    assert.ok(kinds(body, 'error').includes('host_digests_mismatch'), JSON.stringify(body));
  });

  it('fails verify-host when one event of a host batch is deleted', async function () {
    const body = await afterTampering((db) =>
      db.run(`DELETE FROM events WHERE run_id IS NULL AND comm = 'h1'`),
    );
    assert.ok(kinds(body, 'error').includes('host_events_missing'), JSON.stringify(body));
  });

  it('fails verify-host when a host chain entry is forged or its retention record edited', async function () {
    const body = await afterTampering((db) =>
      db.run(`UPDATE host_chain SET body = replace(body, '"events":3', '"events":2')`),
    );
    assert.ok(kinds(body, 'error').includes('object_hash_mismatch'), JSON.stringify(body));
  });

  it('answers 401 to verify-host without the token', async function () {
    const daemon = await fixture.start({ authToken: token });
    const { status, body } = await request(daemon.url, '/v1/graph/verify-host');
    assert.equal(status, 401);
    assert.equal((body['error'] as { code: string }).code, 'unauthorized');
    await assertStopsCleanly(daemon);
  });
});
