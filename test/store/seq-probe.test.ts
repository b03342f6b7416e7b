import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { execute, sql } from '../../src/store/sql.js';
import { probePositions } from '../../src/store/seq-probe.sql.js';
import { useTempDir } from '../support/temp-dir.js';

/** Positions 1..300,000 in a real store file: past the first probe window (65,536) and the second. */
const stored = 300_000n;

describe('probing the positions a filter selects (seq windows)', function () {
  const dir = useTempDir('provd-seq-probe-', { per: 'suite' });
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async function () {
    instance = await DuckDBInstance.create(join(dir.path, 'probe.duckdb'));
    connection = await instance.connect();
    await execute(
      connection,
      sql`CREATE TABLE events AS SELECT range + 1 AS seq, (range + 1) % 50000 = 0 AS sparse FROM range(300000)`,
    );
  });
  after(function () {
    connection.closeSync();
    instance.closeSync();
  });

  it('widens the window past its first 65,536 positions until it has the page, in order', async function () {
    const positions = await probePositions(connection, sql`sparse`, 0n, 3, stored + 1n);
    assert.deepEqual(positions, [50_000n, 100_000n, 150_000n]);
  });

  it('starts after the cursor, not at it', async function () {
    const positions = await probePositions(connection, sql`sparse`, 100_000n, 2, stored + 1n);
    assert.deepEqual(positions, [150_000n, 200_000n]);
  });

  it('reads the position on a window edge and the last one before endSeq, and stops there', async function () {
    const edge = await probePositions(connection, sql`seq = 65536`, 0n, 1, 65_537n);
    assert.deepEqual(edge, [65_536n]);
    const last = await probePositions(connection, sql`seq >= ${stored - 1n}`, 0n, 5, stored + 1n);
    assert.deepEqual(last, [stored - 1n, stored]);
    const none = await probePositions(connection, sql`sparse`, stored, 5, stored + 1n);
    assert.deepEqual(none, []);
  });
});
