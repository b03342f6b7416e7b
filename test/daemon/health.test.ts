import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest, queryRows, withDatabase } from '../support/duckdb.js';
import {
  useDaemonFixture,
  useSharedDaemon,
  useStoredDataDir,
  assertStopsCleanly,
} from '../support/daemon.js';
import { request } from '../support/http.js';
import { applyMigrations, loadMigrations } from '../../src/store/migrations.sql.js';

describe('health endpoints', function () {
  const fixture = useDaemonFixture();
  const dbFile = (): string => join(fixture.dataDir, 'provd.duckdb');

  /** A fresh store a daemon made and stopped cleanly, made once for the file. */
  const freshStore = useStoredDataDir();

  /** The fresh store, in this test's own data dir. */
  function prepareStore(): void {
    freshStore.copyInto(fixture.dataDir);
  }

  describe('of a fresh store', function () {
    // one daemon: liveness touches nothing, so the store stays as fresh as the daemon made it
    const shared = useSharedDaemon();

    it('answers ok and ready on a fresh store', async function () {
      const daemon = shared.daemon;
      for (const path of ['/v1/health', '/v1/ready']) {
        const { status, body } = await request(daemon.url, path);
        assert.equal(status, 200, path);
        assert.equal(body['schema_version'], 'provenance.daemon_health/v1');
        assert.equal(body['status'], 'ok');
        assert.equal(body['ready'], true);
        assert.equal(body['coverage_status'], 'not_observed', 'nothing was captured yet');
        const checks = body['checks'] as Record<string, Record<string, unknown>>;
        assert.equal(checks['database']?.['status'], 'ok');
        assert.equal(checks['schema']?.['status'], 'ok');
        assert.equal(checks['schema']?.['format_version'], checks['schema']?.['supported_format_version']);
        // the agents' hooks: forgeries refused, callers unplaced, writes lost after their answer
        assert.deepEqual(checks['hooks'], {
          status: 'ok',
          refused_tool_call: 0,
          refused_unbound: 0,
          unverified: 0,
          agent_bind_failures: 0,
          sessions: 0,
          sessions_evicted: 0,
          store_failed: 0,
          // stored alone after the batch they came in failed
          stored_alone: 0,
          // the sensor's exec history of hook callers (this daemon runs without the sensor)
          exec_confirmed: 0,
          exec_refused: 0,
          exec_unchecked: 0,
          exec_captured_late: 0,
          exec_history: null,
        });
        assert.equal(body['queued_spool'], 0);
        assert.equal(body['queued_spool_bytes'], 0);
      }
    });

    it('answers liveness without touching the store', async function () {
      const daemon = shared.daemon;
      const { status, body } = await request(daemon.url, '/v1/live');
      assert.equal(status, 200);
      assert.deepEqual(body, { schema_version: 'provenance.daemon_liveness/v1', status: 'ok' });
    });
  });

  it('answers 200 degraded with gaps_recorded when coverage gaps are recorded', async function () {
    prepareStore();
    await withDatabase(dbFile(), (db) =>
      db.run(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, lost_events, recorded_at_ns)
              VALUES ('gap-1', 'run-1', 'kernel_loss', 'provd_sensor', 1, 2, 17, 3)`),
    );
    const daemon = await fixture.start();
    for (const path of ['/v1/health', '/v1/ready']) {
      const { status, body } = await request(daemon.url, path);
      assert.equal(status, 200, path);
      assert.equal(body['status'], 'degraded');
      assert.equal(body['ready'], true);
      assert.equal(body['coverage_status'], 'gaps_recorded');
      const checks = body['checks'] as Record<string, Record<string, unknown>>;
      assert.equal(checks['coverage']?.['recorded_gaps'], 1);
      assert.deepEqual(checks['coverage']?.['gaps_by_kind'], { kernel_loss: { gaps: 1, lost_events: 17 } });
      assert.match(String(checks['coverage']?.['message']), /kernel_loss \(1 gap, 17 events lost\)/);
    }
  });

  it('answers ok after an upgrade to format 14 when the only recorded gaps were truncations', async function () {
    // a format 13 store: records the sensor kept cut were recorded as sensor_truncated gaps
    await withDatabase(dbFile(), async (db) => {
      await applyMigrations(db, loadMigrations().slice(0, 13));
      await db.run(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, lost_events, recorded_at_ns)
                    VALUES ('gap-1', NULL, 'sensor_truncated', 'provd_sensor', 1, 2, NULL, 3),
                           ('gap-2', NULL, 'sensor_ring_full', 'provd_sensor', 1, 2, 4, 3)`);
      await db.run(`INSERT INTO producer_counters VALUES ('provd_sensor', 'truncated', 6, 3)`);
    });
    const daemon = await fixture.start();
    const { body } = await request(daemon.url, '/v1/health');
    const coverage = (body['checks'] as Record<string, Record<string, unknown>>)['coverage'];
    assert.deepEqual(coverage?.['gaps_by_kind'], { sensor_ring_full: { gaps: 1, lost_events: 4 } });
    assert.equal(coverage?.['truncated_records'], 6);
    assert.equal(body['status'], 'degraded', 'the ring_full loss still degrades');
  });

  it('answers ok after an upgrade to format 16 when the only recorded gaps were unparsed TLS, and counts them', async function () {
    // a format 15 store: TLS plaintext that was not HTTP was recorded as sensor_tls_unparsed gaps
    await withDatabase(dbFile(), async (db) => {
      await applyMigrations(db, loadMigrations().slice(0, 15));
      await db.run(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, lost_events, recorded_at_ns)
                    VALUES ('gap-1', NULL, 'sensor_tls_unparsed', 'provd_sensor', 1, 2, 1, 3),
                           ('gap-2', NULL, 'sensor_tls_unparsed', 'provd_sensor', 5, 6, 1, 7)`);
    });
    const daemon = await fixture.start();
    const { status, body } = await request(daemon.url, '/v1/health');
    const coverage = (body['checks'] as Record<string, Record<string, unknown>>)['coverage'];
    assert.deepEqual(
      [status, body['status'], coverage?.['gaps_by_kind'], coverage?.['tls_unparsed_messages']],
      [200, 'ok', {}, 2],
    );
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    const sources = producer['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['provd_sensor']?.['tls_unparsed_messages'], 2);
  });

  it('answers ok after an upgrade to format 4 when the only recorded gaps were spool expiries', async function () {
    // a format 3 store: unclaimed events were recorded as spool_expiry gaps and counted as `expired`
    await withDatabase(dbFile(), async (db) => {
      await applyMigrations(db, loadMigrations().slice(0, 3));
      await db.run(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, lost_events, recorded_at_ns)
                    VALUES ('gap-1', NULL, 'spool_expiry', 'spool', 1, 2, 25, 3)`);
      await db.run(`INSERT INTO producer_counters VALUES ('spool', 'expired', 25, 3)`);
    });
    const daemon = await fixture.start();
    const { status, body } = await request(daemon.url, '/v1/health');
    assert.equal(status, 200);
    assert.equal(body['status'], 'ok');
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_unclaimed'], 25);
    assert.deepEqual(producer['coverage_gaps'], {});
  });

  it('answers 503 naming the table when a required table was dropped', async function () {
    prepareStore();
    await withDatabase(dbFile(), (db) => db.run('DROP TABLE coverage_gaps'));
    const daemon = await fixture.start();
    for (const path of ['/v1/health', '/v1/ready']) {
      const { status, body } = await request(daemon.url, path);
      assert.equal(status, 503, path);
      assert.equal(body['status'], 'unavailable');
      assert.equal(body['ready'], false);
      const schema = (body['checks'] as Record<string, Record<string, unknown>>)['schema'];
      assert.equal(schema?.['status'], 'failed');
      assert.deepEqual(schema?.['missing_tables'], ['coverage_gaps']);
    }
    // /v1/live still answers: the HTTP process is alive even when storage is not usable
    assert.equal((await request(daemon.url, '/v1/live')).status, 200);
  });

  it('answers 503 with check schema and leaves the file untouched when the store format is newer', async function () {
    prepareStore();
    await withDatabase(dbFile(), (db) =>
      db.run(
        "INSERT INTO store_format (version, name, checksum) VALUES (999, 'from_the_future', 'sha256:00')",
      ),
    );
    const before = fileDigest(dbFile());
    const daemon = await fixture.start();
    const { status, body } = await request(daemon.url, '/v1/health');
    assert.equal(status, 503);
    assert.equal(body['ready'], false);
    const schema = (body['checks'] as Record<string, Record<string, unknown>>)['schema'];
    assert.equal(schema?.['status'], 'failed');
    assert.equal(schema?.['format_version'], 999);
    assert.match(String(schema?.['message']), /newer/);
    await assertStopsCleanly(daemon);
    assert.equal(fileDigest(dbFile()), before, 'the newer database must not be modified');
    const rows = await withDatabase(dbFile(), (db) =>
      queryRows(db, 'SELECT max(version) AS v FROM store_format'),
    );
    assert.equal(rows[0]?.['v'], 999);
  });

  it('answers 503 with check schema when the file holds a database that is not a provd store', async function () {
    await withDatabase(dbFile(), (db) => db.run('CREATE TABLE somebody_elses (x INTEGER)'));
    const daemon = await fixture.start();
    const { status, body } = await request(daemon.url, '/v1/health');
    assert.equal(status, 503);
    const schema = (body['checks'] as Record<string, Record<string, unknown>>)['schema'];
    assert.match(String(schema?.['message']), /not a provd store/);
  });

  it('answers 503 with check database when the file is not a DuckDB database', async function () {
    writeFileSync(dbFile(), 'this is not a database\n');
    const daemon = await fixture.start();
    const { status, body } = await request(daemon.url, '/v1/ready');
    assert.equal(status, 503);
    const database = (body['checks'] as Record<string, Record<string, unknown>>)['database'];
    assert.equal(database?.['status'], 'failed');
    assert.match(String(database?.['message']), /not a valid DuckDB database/);
  });

  it('answers 503 with a timeout check when the readiness check overruns its 2-second deadline', async function () {
    const daemon = await fixture.start({ env: { PROVD_FAULT_HEALTH_STALL_MS: '3000' } });
    const pending = request(daemon.url, '/v1/health');
    // the main thread stays responsive while the store thread is stuck
    assert.equal((await request(daemon.url, '/v1/live')).status, 200);
    const { status, body } = await pending;
    assert.equal(status, 503);
    assert.equal(body['status'], 'unavailable');
    assert.equal(body['ready'], false);
    assert.equal(body['coverage_status'], 'unknown');
    const database = (body['checks'] as Record<string, Record<string, unknown>>)['database'];
    assert.equal(database?.['status'], 'timeout');
    assert.equal(database?.['deadline_ms'], 2000);
  });
});
