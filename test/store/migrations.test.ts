import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations } from '../../src/store/migrations.sql.js';
import { requiredTables } from '../../src/store/store-format.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { makeDataDir, removeDir, startDaemon, assertStopsCleanly } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

describe('store migrations', function () {
  it('numbers the shipped migrations 1..n, each with a checksum', function () {
    const migrations = loadMigrations();
    assert.ok(migrations.length >= 1);
    migrations.forEach((migration, index) => {
      assert.equal(migration.version, index + 1);
      assert.match(migration.checksum, /^sha256:[0-9a-f]{64}$/);
    });
  });

  it('refuses a migration folder with a gap in the numbering', function () {
    const dir = mkdtempSync(join(tmpdir(), 'provd-sql-'));
    try {
      writeFileSync(join(dir, '001_a.sql'), 'SELECT 1;');
      writeFileSync(join(dir, '003_c.sql'), 'SELECT 3;');
      assert.throws(() => loadMigrations(dir), /expected 2, found 3/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates exactly the required tables and records every migration on a fresh store', async function () {
    const dataDir = makeDataDir();
    try {
      const daemon = await startDaemon({ dataDir });
      await assertStopsCleanly(daemon);
      await withDatabase(join(dataDir, 'provd.duckdb'), async (db) => {
        const tables = await queryRows(
          db,
          "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1",
        );
        assert.deepEqual(
          tables.map((row) => row['table_name']),
          [...requiredTables].sort(),
        );
        const format = await queryRows(db, 'SELECT version, checksum FROM store_format ORDER BY version');
        assert.deepEqual(
          format.map((row) => [row['version'], row['checksum']]),
          loadMigrations().map((migration) => [migration.version, migration.checksum]),
        );
      });
      // a second start applies nothing new and keeps the store usable
      const again = await startDaemon({ dataDir });
      const opened = again.logs.find((entry) => entry['msg'] === 'store opened');
      assert.deepEqual(opened?.['migrated'], []);
      await assertStopsCleanly(again);
    } finally {
      removeDir(dataDir);
    }
  });

  it('upgrades a store of format 12 to the events table with named compression, every event kept as it was', async function () {
    const dataDir = makeDataDir();
    const dbPath = join(dataDir, 'provd.duckdb');
    const run = 'run-mig';
    const at = (offset: number): string => new Date(Date.now() + offset * 1000).toISOString();
    try {
      const daemon = await startDaemon({ dataDir });
      await bind(daemon.url, { run_id: run, tool_call_id: 'tc-1', cgroup_id: '930', started_at: at(-60) });
      const lines = Array.from({ length: 40 }, (_v, i) =>
        nativeLine({
          event_type: i % 4 === 0 ? 'execve' : 'file_open',
          timestamp: at(-30 + i / 100),
          pid: 90 + (i % 3),
          cgroup_id: i < 35 ? '930' : '931', // the last five wait in the spool: no binding names 931
          path: `/m/${i}\u00e9\u001e"`,
        }),
      );
      assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
      const verified = await request(daemon.url, `/v1/graph/verify?run=${run}`);
      assert.equal(verified.body['status'], 'ok');
      await assertStopsCleanly(daemon);

      // back to format 12: the same columns, without the compression 013 names
      let before: Record<string, unknown>[] = [];
      await withDatabase(dbPath, async (db) => {
        before = await queryRows(db, 'SELECT * FROM events ORDER BY seq');
        const [ddl] = await queryRows(db, "SELECT sql FROM duckdb_tables() WHERE table_name = 'events'");
        assert.doesNotMatch(
          String(ddl?.['sql']),
          /COMPRESSION/i,
          'DuckDB leaves the named compression out of sql',
        );
        await db.run('ALTER TABLE events RENAME TO events_13');
        await db.run(String(ddl?.['sql']));
        await db.run('INSERT INTO events SELECT * FROM events_13');
        await db.run('DROP TABLE events_13');
        await db.run('ALTER TABLE events DROP COLUMN loader_locale'); // 017's
        await db.run('ALTER TABLE events DROP COLUMN login_uid'); // 019's
        await db.run('DROP TABLE host_chain'); // 015's, absent at format 12
        await db.run('DELETE FROM store_format WHERE version >= 13');
      });
      assert.equal(before.length, 40);

      const upgraded = await startDaemon({ dataDir });
      assert.ok(upgraded.logs.some((entry) => entry['msg'] === 'upgrading the store'));
      const opened = upgraded.logs.find((entry) => entry['msg'] === 'store opened');
      assert.deepEqual(opened?.['migrated'], [13, 14, 15, 16, 17, 18, 19]);
      const again = await request(upgraded.url, `/v1/graph/verify?run=${run}`);
      assert.equal(again.body['status'], 'ok');
      await assertStopsCleanly(upgraded);
      await withDatabase(dbPath, async (db) => {
        // loader_locale too: set on opening the store as the commit had set it
        assert.deepEqual(await queryRows(db, 'SELECT * FROM events ORDER BY seq'), before);
        // the compression it names is the one DuckDB then writes
        await db.run('CHECKPOINT');
        const methods = await queryRows(
          db,
          `SELECT DISTINCT column_name, compression FROM pragma_storage_info('events')
           WHERE column_name IN ('id', 'hash') AND segment_type = 'VARCHAR' ORDER BY 1`,
        );
        assert.deepEqual(
          methods.map((row) => [row['column_name'], row['compression']]),
          [
            ['hash', 'FSST'],
            ['id', 'FSST'],
          ],
        );
      });
    } finally {
      removeDir(dataDir);
    }
  });

  it('judges the events stored before format 17 loader and locale opens or not, as the commit does', async function () {
    const dataDir = makeDataDir();
    const dbPath = join(dataDir, 'provd.duckdb');
    const run = 'run-loader';
    const at = (offset: number): string => new Date(Date.now() + offset * 1000).toISOString();
    const opens = [
      ['/etc/ld.so.cache', 'O_RDONLY|O_CLOEXEC'],
      ['/lib/x86_64-linux-gnu/libc.so.6', 524288],
      ['/usr/lib/locale/locale-archive', 'O_RDONLY'],
      ['/etc/ld.so.preload', 'O_RDONLY'],
      ['/tmp/x.so', 'O_RDONLY'],
      ['/usr/lib/x86_64-linux-gnu/libc.so.6', 'O_RDWR'],
    ] as const;
    try {
      const daemon = await startDaemon({ dataDir });
      await bind(daemon.url, { run_id: run, tool_call_id: 'tc-1', cgroup_id: '940', started_at: at(-60) });
      const lines = opens.map(([path, flags], i) =>
        nativeLine({ event_type: 'file_open', timestamp: at(-30 + i), cgroup_id: '940', path, flags }),
      );
      assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
      await assertStopsCleanly(daemon);
      const judged =
        "SELECT json_extract_string(attrs, '$.path') AS path, loader_locale FROM events ORDER BY seq";
      let before: Record<string, unknown>[] = [];
      await withDatabase(dbPath, async (db) => {
        before = await queryRows(db, judged);
        await db.run('ALTER TABLE events DROP COLUMN loader_locale');
        await db.run('DELETE FROM store_format WHERE version >= 17');
      });
      assert.deepEqual(
        before.map((row) => row['loader_locale']),
        [true, true, true, false, false, false],
      );
      const upgraded = await startDaemon({ dataDir });
      const opened = upgraded.logs.find((entry) => entry['msg'] === 'store opened');
      assert.deepEqual(opened?.['migrated'], [17, 18, 19]);
      await assertStopsCleanly(upgraded);
      await withDatabase(dbPath, async (db) => {
        assert.deepEqual(await queryRows(db, judged), before);
      });
    } finally {
      removeDir(dataDir);
    }
  });
});
