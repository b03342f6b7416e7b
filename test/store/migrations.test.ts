import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations } from '../../src/store/migrations.js';
import { requiredTables } from '../../src/store/store-format.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { makeDataDir, removeDir, startDaemon, assertStopsCleanly } from '../support/daemon.js';

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
});
