import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** Host rounds every 200 ms (the daemon's own: a minute). */
const fastRounds = { PROVD_FAULT_HOST_ROUND_MS: '200' };

function lines(count: number, cgroup: string): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp: new Date().toISOString(), cgroup_id: cgroup, comm: `e${i}`, pid: 7500 + i }),
  ).join('\n');
}

interface Issue {
  severity: string;
  kind: string;
  id: string;
}

describe('verify-host over the host events of one chunk', function () {
  const fixture = useDaemonFixture();
  const dbPath = (): string => join(fixture.dataDir, 'provd.duckdb');

  /**
   * A stopped store with three signed host batches (cgroups 951, 952, 953, three events each) and a
   * run's batch between the first two; returns the host digests by cgroup, in seq order.
   */
  async function threeSignedBatches(): Promise<{ batchId: string; seqFrom: bigint; seqTo: bigint }[]> {
    const daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    await bind(daemon.url, { run_id: 'between', tool_call_id: 't', cgroup_id: '950' });
    for (const cgroup of ['951', '950', '952', '953'])
      assert.equal((await ingest(daemon.url, lines(3, cgroup), 'native')).status, 200);
    await eventually(
      'the host batches signed',
      async () => (await request(daemon.url, '/v1/graph/verify-host')).body,
      (body) => body['status'] === 'ok' && (body['issues'] as Issue[]).length === 0,
    );
    await assertStopsCleanly(daemon);
    const digests = await withDatabase(dbPath(), (db) =>
      queryRows(
        db,
        'SELECT batch_id, seq_from, seq_to FROM event_batches WHERE run_id IS NULL ORDER BY seq_from',
      ),
    );
    assert.equal(digests.length, 3);
    return digests.map((row) => ({
      batchId: row['batch_id'] as string,
      seqFrom: row['seq_from'] as bigint,
      seqTo: row['seq_to'] as bigint,
    }));
  }

  async function verifiedAfter(tamper: (db: DuckDBConnection) => Promise<unknown>): Promise<Issue[]> {
    await withDatabase(dbPath(), tamper);
    const daemon = await fixture.start({ env: fastRounds });
    const { body } = await request(daemon.url, '/v1/graph/verify-host');
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    const full = await request(daemon.url, '/v1/graph/verify-host?full=true');
    assert.deepEqual(full.body, body);
    await assertStopsCleanly(daemon);
    return (body['issues'] as Issue[]).map(({ severity, kind, id }) => ({ severity, kind, id }));
  }

  // hex decoding takes upper case as well, and stops at the first character that is not hex: a leaf
  // of either must still be the sha256 of the hash's text, and the other batches' leaves their own
  for (const [shape, edit] of [
    ['upper case', "'sha256:' || upper(substr(hash, 8))"],
    ['not hex', "'sha256:' || repeat('g', 64)"],
  ] as const) {
    it(`names only the batch with a hash edited into ${shape}`, async function () {
      const [, second] = await threeSignedBatches();
      let edited = '';
      const issues = await verifiedAfter(async (db) => {
        const [row] = await queryRows(
          db,
          `SELECT id FROM events WHERE run_id IS NULL AND seq = ${second!.seqFrom}`,
        );
        edited = row!['id'] as string;
        await db.run(`UPDATE events SET hash = ${edit} WHERE id = '${edited}'`);
      });
      assert.deepEqual(issues, [
        { severity: 'error', kind: 'event_hash_mismatch', id: edited },
        { severity: 'error', kind: 'batch_root_mismatch', id: second!.batchId },
      ]);
    });
  }

  it('names a host event inserted between two batches, which no digest seals', async function () {
    const [first, second] = await threeSignedBatches();
    assert.ok(second!.seqFrom > first!.seqTo, "the run's batch sits between them");
    const issues = await verifiedAfter((db) =>
      db.run(
        `INSERT INTO events SELECT * REPLACE ('forged' AS id, ${first!.seqTo} AS seq)
         FROM events WHERE run_id IS NULL AND seq = ${first!.seqFrom}`,
      ),
    );
    assert.deepEqual(issues, [{ severity: 'error', kind: 'unsealed_event', id: 'forged' }]);
  });
});
