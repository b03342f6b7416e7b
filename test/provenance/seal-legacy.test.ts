import assert from 'node:assert/strict';
import { join } from 'node:path';
import { merkleRoot } from '../../src/provenance/merkle.js';
import { applyMigrations, loadMigrations } from '../../src/store/migrations.sql.js';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';

const hashOf = (n: number): string => 'sha256:' + n.toString(16).padStart(64, '0');

describe('runs stored before the graph (format 4)', function () {
  const fixture = useDaemonFixture();

  it('get a run object and their events sealed in chained batches at the first start of format 5', async function () {
    const dbFile = join(fixture.dataDir, 'provd.duckdb');
    await withDatabase(dbFile, async (db) => {
      await applyMigrations(db, loadMigrations().slice(0, 4));
      await db.run(`INSERT INTO runs VALUES ('old-run', 5)`);
      // seq 1 belongs to another run: the old run's batch covers 0..2 and leaves it out
      for (const [seq, run] of [
        [0, 'old-run'],
        [1, null],
        [2, 'old-run'],
      ] as const) {
        await db.run(
          `INSERT INTO events (id, seq, run_id, type, source, time, time_ns, ingested_ns, corr_method,
             evidence_level, spool_state, attrs, hash)
           VALUES ('e${seq}', ${seq}, ${run === null ? 'NULL' : `'${run}'`}, 0, 0, 't', 1, 1, 0, 0, 0, '{}', '${hashOf(seq)}')`,
        );
      }
    });
    await assertStopsCleanly(await fixture.start());

    await withDatabase(dbFile, async (db) => {
      const [run] = await queryRows(db, `SELECT object_hash FROM runs WHERE run_id = 'old-run'`);
      assert.match(String(run?.['object_hash']), /^sha256:[0-9a-f]{64}$/);
      const batches = await queryRows(
        db,
        `SELECT body, hash FROM objects WHERE run_id = 'old-run' AND kind = 'event_batch' ORDER BY chain_index`,
      );
      assert.equal(batches.length, 1);
      const body = JSON.parse(String(batches[0]!['body'])) as {
        parents: string[];
        payload: Record<string, unknown>;
      };
      assert.deepEqual(body.parents, [run?.['object_hash']]);
      assert.equal(body.payload['events'], 2);
      assert.equal(body.payload['seq_from'], '0');
      assert.equal(body.payload['seq_to'], '3');
      assert.equal(body.payload['merkle_root'], merkleRoot([hashOf(0), hashOf(2)]));
    });

    // a second start seals nothing again (the first signed a checkpoint of it when it closed)
    const objectsOf = async (): Promise<Record<string, unknown>[]> =>
      withDatabase(dbFile, (db) =>
        queryRows(
          db,
          `SELECT kind, count(*)::INTEGER AS n FROM objects WHERE run_id = 'old-run' GROUP BY kind ORDER BY kind`,
        ),
      );
    const before = await objectsOf();
    assert.deepEqual(before, [
      { kind: 'checkpoint', n: 1 },
      { kind: 'event_batch', n: 1 },
      { kind: 'run', n: 1 },
    ]);
    await assertStopsCleanly(await fixture.start());
    assert.deepEqual(await objectsOf(), before);
  });
});
