import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { assertStopsCleanly, useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { ingest, nativeLine } from '../support/telemetry.js';

/** Host rounds every 200 ms; the spool gives host events up after 100 ms. */
const fastRounds = { PROVD_FAULT_HOST_ROUND_MS: '200' };

function hostLines(count: number, cgroup: string): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp: new Date().toISOString(), cgroup_id: cgroup, comm: `a${i}`, pid: 7000 + i }),
  ).join('\n');
}

async function verifyHost(daemon: RunningDaemon, query = ''): Promise<Record<string, unknown>> {
  const { status, body } = await request(daemon.url, `/v1/graph/verify-host${query}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

function errorKinds(body: Record<string, unknown>): string[] {
  return (body['issues'] as { kind: string; severity: string }[])
    .filter((issue) => issue.severity === 'error')
    .map((issue) => issue.kind);
}

describe('host chain anchor', function () {
  const fixture = useDaemonFixture();
  const anchorFile = (): string => join(fixture.dataDir, 'host-chain-anchor.log');

  /** A stopped store with two host batches, each signed by its own host chain entry. */
  async function storeTwoSignedBatches(): Promise<void> {
    const daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    for (const cgroup of ['901', '902']) {
      assert.equal((await ingest(daemon.url, hostLines(3, cgroup), 'native')).status, 200);
      const entries = cgroup === '901' ? 1 : 2;
      await eventually(
        `the batch of cgroup ${cgroup} signed and anchored`,
        () => (existsSync(anchorFile()) ? readFileSync(anchorFile(), 'utf8').split('\n').length - 1 : 0),
        (lines) => lines >= entries,
      );
    }
    const body = await verifyHost(daemon);
    assert.equal(body['status'], 'ok', JSON.stringify(body));
    await assertStopsCleanly(daemon);
  }

  /** Edits the stopped store, starts the daemon again and returns verify-host's answer. */
  async function afterDeleting(
    tamper: (db: DuckDBConnection) => Promise<unknown>,
  ): Promise<Record<string, unknown>> {
    await storeTwoSignedBatches();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), tamper);
    const daemon = await fixture.start({ env: fastRounds });
    const body = await verifyHost(daemon);
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    // a full verification finds the same
    const full = await verifyHost(daemon, '?full=true');
    assert.deepEqual(errorKinds(full).sort(), errorKinds(body).sort());
    await assertStopsCleanly(daemon);
    return body;
  }

  it('writes one signed line per host chain entry, private to the daemon', async function () {
    await storeTwoSignedBatches();
    assert.equal(statSync(anchorFile()).mode & 0o777, 0o600);
    const lines = readFileSync(anchorFile(), 'utf8').trimEnd().split('\n');
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      const chain = await queryRows(db, 'SELECT chain_index, hash FROM host_chain ORDER BY chain_index');
      const anchored = lines.map((line) => {
        const envelope = JSON.parse(line) as { payloadType: string; payload: string };
        assert.equal(envelope.payloadType, 'application/vnd.provd.host-anchor+json');
        const point = JSON.parse(Buffer.from(envelope.payload, 'base64').toString()) as {
          index: number;
          hash: string;
        };
        return { chain_index: BigInt(point.index), hash: point.hash };
      });
      assert.deepEqual(anchored, chain);
    });
  });

  it('fails verify-host when the newest host batch, its digest and its chain entry are deleted', async function () {
    const body = await afterDeleting(async (db) => {
      const [newest] = await queryRows(
        db,
        'SELECT seq_from, seq_to FROM event_batches WHERE run_id IS NULL ORDER BY seq_from DESC LIMIT 1',
      );
      await db.run(
        `DELETE FROM events WHERE run_id IS NULL AND seq >= ${String(newest!['seq_from'])} AND seq < ${String(newest!['seq_to'])}`,
      );
      await db.run(
        `DELETE FROM event_batches WHERE run_id IS NULL AND seq_from = ${String(newest!['seq_from'])}`,
      );
      await db.run('DELETE FROM host_chain WHERE chain_index = (SELECT max(chain_index) FROM host_chain)');
    });
    assert.deepEqual(errorKinds(body), ['host_chain_truncated'], JSON.stringify(body));
  });

  it('fails verify-host when every host event, digest and chain entry is deleted', async function () {
    const body = await afterDeleting(async (db) => {
      await db.run('DELETE FROM events WHERE run_id IS NULL');
      await db.run('DELETE FROM event_batches WHERE run_id IS NULL');
      await db.run('DELETE FROM host_chain');
    });
    assert.deepEqual(errorKinds(body), ['host_chain_truncated'], JSON.stringify(body));
  });

  it('fails verify-host when the anchor file is deleted', async function () {
    await storeTwoSignedBatches();
    rmSync(anchorFile());
    const daemon = await fixture.start({ env: fastRounds });
    const body = await verifyHost(daemon);
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    assert.deepEqual(errorKinds(body), ['host_anchor_missing'], JSON.stringify(body));
    await assertStopsCleanly(daemon);
  });
});
