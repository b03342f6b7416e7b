import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseObject, sha256 } from '../../src/provenance/graph-object.js';
import { merkleRoot } from '../../src/provenance/merkle.js';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** Asserts the run's event_batch chain and that it seals each of the run's events exactly once. */
async function assertSealed(db: DuckDBConnection, runId: string, events: number): Promise<number> {
  const [run] = await queryRows(db, `SELECT object_hash FROM runs WHERE run_id = '${runId}'`);
  const batches = await queryRows(
    db,
    `SELECT hash, body, chain_index FROM objects WHERE run_id = '${runId}' AND kind = 'event_batch' ORDER BY chain_index`,
  );
  let previous = String(run?.['object_hash']);
  let sealed = 0;
  let seqTo = -1;
  for (const [index, row] of batches.entries()) {
    const body = String(row['body']);
    assert.equal(row['hash'], sha256(body), 'the address is the hash of the stored bytes');
    const object = parseObject(body);
    assert.deepEqual(object.parents, [previous], `batch ${index} follows the one before`);
    assert.equal(object.payload['index'], index);
    assert.ok(Number(object.payload['seq_from']) >= seqTo, `batch ${index} comes after the one before it`);
    seqTo = Number(object.payload['seq_to']);
    const hashes = await queryRows(
      db,
      `SELECT hash FROM events WHERE run_id = '${runId}'
         AND seq >= ${String(object.payload['seq_from'])} AND seq < ${String(object.payload['seq_to'])} ORDER BY seq`,
    );
    assert.equal(object.payload['events'], hashes.length);
    assert.equal(object.payload['merkle_root'], merkleRoot(hashes.map((h) => String(h['hash']))));
    sealed += hashes.length;
    previous = String(row['hash']);
  }
  assert.equal(sealed, events, 'every event of the run is sealed once');
  const [head] = await queryRows(
    db,
    `SELECT hash FROM run_heads WHERE run_id = '${runId}' AND chain = 'event_batch'`,
  );
  assert.equal(head?.['hash'], previous, 'the head is the last batch');
  return batches.length;
}

describe('sealing events into the graph', function () {
  const fixture = useDaemonFixture();

  it('chains a batch per commit of a run, and seals spooled events in a later batch of their run', async function () {
    const daemon = await fixture.start();
    const at = (s: number): string => `2026-01-01T00:00:0${s}Z`;
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc-a', cgroup_id: '777' });
    const first = [1, 2, 3].map((s) => nativeLine({ cgroup_id: '777', timestamp: at(s), comm: `a${s}` }));
    // two events of a cgroup nobody bound yet: they wait in the spool
    const early = [4, 5].map((s) => nativeLine({ cgroup_id: '888', timestamp: at(s), comm: `b${s}` }));
    assert.equal((await ingest(daemon.url, [...first, ...early].join('\n'), 'native')).status, 200);
    assert.equal(
      (await ingest(daemon.url, nativeLine({ timestamp: at(6), comm: 'a6' }), 'native')).status,
      200,
    );
    await bind(daemon.url, { run_id: 'run-b', tool_call_id: 'tc-b', cgroup_id: '888' });
    await assertStopsCleanly(daemon);

    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      assert.equal(await assertSealed(db, 'run-a', 4), 2, 'one batch per commit');
      assert.equal(await assertSealed(db, 'run-b', 2), 1, 'the settled events in a batch of their own');
      const bindings = await queryRows(
        db,
        `SELECT b.object_hash, o.body FROM bindings b JOIN objects o ON o.hash = b.object_hash ORDER BY b.created_ns`,
      );
      assert.equal(bindings.length, 2, 'each binding is an object');
      for (const row of bindings) {
        const object = parseObject(String(row['body']));
        assert.equal(object.kind, 'binding');
        assert.equal(sha256(String(row['body'])), row['object_hash']);
      }
    });
  });

  it('seals after a restart the batch of a commit the daemon died right after', async function () {
    const crashing = await fixture.start({ env: { PROVD_FAULT_KILL_AFTER_COMMIT: '1' } });
    await bind(crashing.url, { run_id: 'run-k', tool_call_id: 'tc-k', cgroup_id: '777' });
    const lines = [1, 2, 3].map((s) =>
      nativeLine({ cgroup_id: '777', timestamp: `2026-01-01T00:00:0${s}Z` }),
    );
    await assert.rejects(ingest(crashing.url, lines.join('\n'), 'native'), 'killed before it answered');
    assert.equal(await crashing.stop(), null, 'killed by SIGKILL');
    const dbFile = join(fixture.dataDir, 'provd.duckdb');
    await withDatabase(dbFile, async (db) => {
      const digests = await queryRows(db, `SELECT object_hash FROM event_batches WHERE run_id = 'run-k'`);
      assert.deepEqual(digests, [{ object_hash: null }], 'committed with its digest, not sealed yet');
    });

    const daemon = await fixture.start();
    const verified = await request(daemon.url, '/v1/graph/verify?run=run-k');
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
    await assertStopsCleanly(daemon);
    await withDatabase(dbFile, async (db) => assert.equal(await assertSealed(db, 'run-k', 3), 1));
  });
});
