import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { parseObject, sha256 } from '../../src/provenance/graph-object.js';
import { storedEventContentSql } from '../../src/telemetry/stored-event-hash.js';
import {
  assertStopsCleanly,
  useDaemonFixture,
  useStoredDataDir,
  type RunningDaemon,
} from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

const run = 'run-v';

/** Lines of the run's cgroup, one per second from `first`. */
function lines(count: number, first: number): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({
      timestamp: `2026-01-01T00:00:${String(first + i).padStart(2, '0')}Z`,
      comm: `c${first + i}`,
    }),
  ).join('\n');
}

async function verify(url: string, runId = run): Promise<{ status: number; body: Record<string, unknown> }> {
  return request(url, `/v1/graph/verify?run=${encodeURIComponent(runId)}`);
}

function kinds(body: Record<string, unknown>): string[] {
  return [...new Set((body['issues'] as { kind: string }[]).map((issue) => issue.kind))].sort();
}

/** Replaces an object with an edited copy under its new, correct address, as a careful forger would. */
async function reAddress(
  db: DuckDBConnection,
  oldHash: string,
  edit: (object: ReturnType<typeof parseObject>) => void,
): Promise<void> {
  const [row] = await queryRows(db, `SELECT body FROM objects WHERE hash = '${oldHash}'`);
  const object = parseObject(String(row?.['body']));
  edit(object);
  const body = canonicalJson(object);
  const hash = sha256(body);
  await db.run(`UPDATE objects SET hash = '${hash}', body = $1 WHERE hash = '${oldHash}'`, [body]);
  await db.run(`UPDATE run_heads SET hash = '${hash}' WHERE hash = '${oldHash}'`);
}

describe('GET /v1/graph/verify', function () {
  const fixture = useDaemonFixture();

  /** A run with two committed batches (5 and 3 events), verified ok, then the daemon stopped: stored once for the file. */
  const storedRun = useStoredDataDir(async (daemon) => {
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-v', cgroup_id: '777' });
    assert.equal((await ingest(daemon.url, lines(5, 1), 'native')).status, 200);
    assert.equal((await ingest(daemon.url, lines(3, 10), 'native')).status, 200);
    const { status, body } = await verify(daemon.url);
    assert.equal(status, 200);
    assert.equal(body['status'], 'ok', JSON.stringify(body));
  });

  /** The stored run, in this test's own data dir. */
  function storeRun(): void {
    storedRun.copyInto(fixture.dataDir);
  }

  /** Tampers with the stopped daemon's database, restarts it, and returns verify's answer. */
  async function afterTampering(
    tamper: (db: DuckDBConnection) => Promise<unknown>,
  ): Promise<{ daemon: RunningDaemon; body: Record<string, unknown> }> {
    storeRun();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), tamper);
    const daemon = await fixture.start();
    const { status, body } = await verify(daemon.url);
    assert.equal(status, 200);
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    assert.ok((body['error_count'] as number) > 0);
    return { daemon, body };
  }

  it('answers ok with no issues for an untouched run, 404 for an unknown run and 400 without run', async function () {
    storeRun();
    const daemon = await fixture.start();
    const { status, body } = await verify(daemon.url);
    assert.equal(status, 200);
    assert.deepEqual(
      {
        status: body['status'],
        issues: body['issues'],
        errors: body['error_count'],
        count: body['issue_count'],
      },
      { status: 'ok', issues: [], errors: 0, count: 0 },
    );
    const unknown = await verify(daemon.url, 'no-such-run');
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body['error'] as Record<string, unknown>)['code'], 'run_not_found');
    const missing = await request(daemon.url, '/v1/graph/verify');
    assert.equal(missing.status, 400);
    assert.match(String((missing.body['error'] as Record<string, unknown>)['message']), /run/);
  });

  it('names event_hash_mismatch when a stored event field was edited', async function () {
    const { body } = await afterTampering((db) => db.run(`UPDATE events SET comm = 'forged' WHERE seq = 1`));
    assert.deepEqual(kinds(body), ['event_hash_mismatch']);
  });

  it('names batch_count_mismatch when a stored event was deleted', async function () {
    const { body } = await afterTampering((db) => db.run(`DELETE FROM events WHERE seq = 2`));
    assert.deepEqual(kinds(body), ['batch_count_mismatch']);
  });

  it('names batch_root_mismatch when an event and its hash were both rewritten', async function () {
    const { body } = await afterTampering(async (db) => {
      await db.run(`UPDATE events SET comm = 'forged', hash = '${sha256('forged')}' WHERE seq = 1`);
    });
    assert.ok(kinds(body).includes('batch_root_mismatch'), JSON.stringify(body));
  });

  it('names unsealed_event when a forged event was inserted into the run', async function () {
    const { body } = await afterTampering((db) =>
      // at the seq right after the last batch's range: the first one a forger appending would take
      db.run(
        `INSERT INTO events SELECT * REPLACE ('forged.0' AS id, (SELECT max(seq) + 1 FROM events) AS seq)
         FROM events WHERE seq = 0`,
      ),
    );
    assert.deepEqual(kinds(body), ['unsealed_event']);
  });

  it('names a stored hash that is not sha256 hex, without failing the check', async function () {
    const { body } = await afterTampering((db) =>
      db.run(`UPDATE events SET hash = 'not a hash' WHERE seq = 2`),
    );
    assert.deepEqual(kinds(body), ['batch_root_mismatch', 'event_hash_mismatch']);
  });

  it("names object_hash_mismatch when an object's bytes were changed", async function () {
    const { body } = await afterTampering((db) =>
      db.run(
        `UPDATE objects SET body = replace(body, '"events":5', '"events":4') WHERE kind = 'event_batch'`,
      ),
    );
    assert.ok(kinds(body).includes('object_hash_mismatch'), JSON.stringify(body));
  });

  it('names chain_link_broken when a batch names another parent, even under a correct address', async function () {
    const { body } = await afterTampering(async (db) => {
      const [second] = await queryRows(
        db,
        `SELECT hash FROM objects WHERE kind = 'event_batch' AND chain_index = 1 AND run_id = '${run}'`,
      );
      const [root] = await queryRows(db, `SELECT object_hash FROM runs WHERE run_id = '${run}'`);
      await reAddress(db, String(second?.['hash']), (object) => {
        object.parents = [String(root?.['object_hash'])]; // skips the first batch
      });
    });
    // the signed checkpoint still names the batch as it was
    assert.deepEqual(kinds(body), ['chain_link_broken', 'checkpoint_stale', 'parent_missing']);
  });

  it('names chain_gap when a batch was dropped from the chain', async function () {
    const { body } = await afterTampering((db) =>
      db.run(`DELETE FROM objects WHERE kind = 'event_batch' AND chain_index = 0 AND run_id = '${run}'`),
    );
    assert.deepEqual(kinds(body), ['chain_gap', 'parent_missing', 'unsealed_event']);
  });

  it('names batch_count_mismatch when a batch was re-addressed to overlap the one before it', async function () {
    const { body } = await afterTampering(async (db) => {
      const [second] = await queryRows(
        db,
        `SELECT hash FROM objects WHERE kind = 'event_batch' AND chain_index = 1 AND run_id = '${run}'`,
      );
      const [first] = await queryRows(
        db,
        `SELECT json_extract(body, '$.payload.seq_from')::BIGINT AS f FROM objects
         WHERE kind = 'event_batch' AND chain_index = 0 AND run_id = '${run}'`,
      );
      await reAddress(db, String(second?.['hash']), (object) => {
        object.payload['seq_from'] = Number(first?.['f']);
      });
    });
    // it now claims the first batch's five events as well as its own three
    assert.ok(kinds(body).includes('batch_count_mismatch'), JSON.stringify(body));
  });

  it('recomputes the root of a batch whose tree takes several folding passes, and names one edited event in it', async function () {
    const daemon = await fixture.start();
    await bind(daemon.url, { run_id: 'run-wide', tool_call_id: 'tc-w', cgroup_id: '778' });
    const wide = Array.from({ length: 300 }, (_, i) =>
      nativeLine({
        cgroup_id: '778',
        timestamp: `2026-01-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
        comm: `w${i}`,
      }),
    );
    assert.equal((await ingest(daemon.url, wide.join('\n'), 'native')).status, 200);
    const before = await verify(daemon.url, 'run-wide');
    assert.equal(before.body['status'], 'ok', JSON.stringify(before.body));
    await assertStopsCleanly(daemon);
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      db.run(`UPDATE events SET comm = 'forged', hash = '${sha256('forged')}' WHERE comm = 'w201'`),
    );
    const after = await verify((await fixture.start()).url, 'run-wide');
    assert.deepEqual(kinds(after.body), ['batch_root_mismatch', 'event_hash_mismatch']);
  });

  it('under PROVD_FAULT_NO_SEALING says so in health, and the run fails verify with its events unsealed', async function () {
    const daemon = await fixture.start({ env: { PROVD_FAULT_NO_SEALING: '1' } });
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-v', cgroup_id: '777' });
    assert.equal((await ingest(daemon.url, lines(4, 1), 'native')).status, 200);
    const health = await request(daemon.url, '/v1/health');
    const checks = health.body['checks'] as Record<string, { status: string; message: string }>;
    assert.equal(checks['sealing']?.status, 'unavailable');
    assert.match(checks['sealing']?.message ?? '', /PROVD_FAULT_NO_SEALING/);
    const { body } = await verify(daemon.url);
    assert.equal(body['status'], 'failed');
    assert.deepEqual(kinds(body), ['checkpoint_missing', 'unsealed_event']);
    // not even the verify signs a checkpoint
    const checkpoint = await request(daemon.url, `/v1/graph/checkpoint?run=${run}`);
    assert.equal(checkpoint.status, 404, JSON.stringify(checkpoint.body));
    // a digest that claims to be committed in the future is no excuse for its events either: only
    // one committed while verify ran makes its events pending (a warning) rather than unsealed
    await assertStopsCleanly(daemon);
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      db.run('UPDATE event_batches SET committed_ns = committed_ns + 3600000000000'),
    );
    const again = await fixture.start({ env: { PROVD_FAULT_NO_SEALING: '1' } });
    assert.deepEqual(kinds((await verify(again.url)).body), ['checkpoint_missing', 'unsealed_event']);
  });

  it('rehashes in DuckDB exactly as ingest hashed, for every real producer line and hostile text', async function () {
    const daemon = await fixture.start();
    const hostile = [
      'quo"te\\back',
      'ctl\u0001\u000b\u001f\u007f',
      'é 日本 😀',
      'line\u2028sep\u2029',
      'tab\tnl\n',
    ];
    const corpus = ['tetragon', 'falco'].map((name) =>
      readFileSync(join('test', 'fixtures', 'real', `${name}.jsonl`), 'utf8'),
    );
    const lines = hostile.map((comm, i) =>
      nativeLine({ comm, container_id: comm, pid: 100 + i, uid: 4294967295 }),
    );
    for (const body of [...corpus, lines.join('\n')]) {
      const { status, body: answer } = await ingest(daemon.url, body);
      assert.equal(status, 200);
      assert.equal(answer['rejected'], 0, JSON.stringify(answer['errors']));
    }
    await assertStopsCleanly(daemon);
    const [row] = await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      queryRows(
        db,
        `SELECT count(*) AS total, count(*) FILTER ('sha256:' || sha256(${storedEventContentSql}) <> hash) AS differ FROM events`,
      ),
    );
    assert.ok(Number(row!['total']) > 40, `only ${String(row!['total'])} events`);
    assert.equal(Number(row!['differ']), 0);
  });
});
