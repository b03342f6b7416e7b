import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { signEnvelope } from '../../src/provenance/dsse.js';
import { sha256 } from '../../src/provenance/graph-object.js';
import { hostPayloadType } from '../../src/provenance/host/host-chain.sql.js';
import { loadSigningKey } from '../../src/provenance/signing-key.js';
import { assertStopsCleanly, useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { ingest, nativeLine } from '../support/telemetry.js';

/** Host rounds every 200 ms. */
const fastRounds = { PROVD_FAULT_HOST_ROUND_MS: '200' };

function hostLines(count: number, cgroup: string): string {
  return Array.from({ length: count }, (_, i) =>
    nativeLine({ timestamp: new Date().toISOString(), cgroup_id: cgroup, comm: `r${i}`, pid: 7100 + i }),
  ).join('\n');
}

async function verifyHost(daemon: RunningDaemon, query = ''): Promise<Record<string, unknown>> {
  const { status, body } = await request(daemon.url, `/v1/graph/verify-host${query}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

function issuesOf(body: Record<string, unknown>): { kind: string; severity: string; message: string }[] {
  return body['issues'] as { kind: string; severity: string; message: string }[];
}

/** The anchor file's lines, as the points they sign. */
function anchorPoints(file: string): { index: number; hash: string; recovered?: true }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        JSON.parse(Buffer.from((JSON.parse(line) as { payload: string }).payload, 'base64').toString()) as {
          index: number;
          hash: string;
          recovered?: true;
        },
    );
}

describe('host chain anchor after an upgrade or a crash', function () {
  const fixture = useDaemonFixture();
  const anchorFile = (): string => join(fixture.dataDir, 'host-chain-anchor.log');
  const dbPath = (): string => join(fixture.dataDir, 'provd.duckdb');

  /** Ingests a host batch of `cgroup` and waits until the anchor file has `lines` lines. */
  async function signedBatch(daemon: RunningDaemon, cgroup: string, lines: number): Promise<void> {
    assert.equal((await ingest(daemon.url, hostLines(3, cgroup), 'native')).status, 200);
    await eventually(
      `the batch of cgroup ${cgroup} signed and anchored`,
      () => anchorPoints(anchorFile()).length,
      (count) => count >= lines,
    );
  }

  it('anchors the head of a store made before the anchor file, and verifies it ok with the recovery named', async function () {
    let daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    await signedBatch(daemon, '811', 1);
    await signedBatch(daemon, '812', 2);
    await assertStopsCleanly(daemon);
    // as main's daemon left it: entries that do not say they are anchored (re-signed with the
    // store's own key, as main signed them), and no anchor file
    const key = loadSigningKey(join(fixture.dataDir, 'signing-key.pem'));
    await withDatabase(dbPath(), async (db) => {
      const rows = await queryRows(db, 'SELECT chain_index, body FROM host_chain ORDER BY chain_index');
      let previous: string | null = null;
      for (const row of rows) {
        const body = JSON.parse(row['body'] as string) as { payload: Record<string, unknown> };
        delete body.payload['anchored'];
        const text = canonicalJson({
          kind: 'host_checkpoint',
          parents: previous === null ? [] : [previous],
          payload: body.payload,
        });
        const hash = sha256(text);
        const envelope = JSON.stringify(
          signEnvelope(hostPayloadType, Buffer.from(text), key.privateKey, key.keyId),
        );
        await db.run('UPDATE host_chain SET hash = $1, body = $2, envelope = $3 WHERE chain_index = $4', [
          hash,
          text,
          envelope,
          row['chain_index'] as bigint,
        ]);
        previous = hash;
      }
    });
    rmSync(anchorFile());

    daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
    const upgraded = await verifyHost(daemon);
    assert.equal(upgraded['status'], 'ok', JSON.stringify(upgraded));
    assert.deepEqual(
      issuesOf(upgraded).map((issue) => [issue.severity, issue.kind]),
      [['warning', 'host_anchor_recovered']],
    );
    // the head (entry 1) only: each entry names the one before it
    const started = anchorPoints(anchorFile());
    assert.deepEqual(
      started.map((point) => [point.index, point.recovered]),
      [[1, true]],
    );
    // rounds go on from the head it anchored, each entry anchored when signed
    await signedBatch(daemon, '813', 2);
    const after = anchorPoints(anchorFile());
    assert.deepEqual(
      after.map((point) => [point.index, point.recovered]),
      [
        [1, true],
        [2, undefined],
      ],
    );
    for (const query of ['', '?full=true']) {
      const body = await verifyHost(daemon, query);
      assert.equal(body['status'], 'ok', JSON.stringify(body));
      assert.deepEqual(
        issuesOf(body).map((issue) => issue.kind),
        ['host_anchor_recovered'],
      );
    }
    await assertStopsCleanly(daemon);
  });

  for (const [name, before] of [
    ['its first entry', 0],
    ['a later entry', 1],
  ] as const) {
    it(`verifies ok, naming the recovery, after a crash between the COMMIT of ${name} and its anchor line`, async function () {
      let daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
      if (before > 0) await signedBatch(daemon, '821', before);
      await assertStopsCleanly(daemon);
      // the next round that signs an entry dies right after its COMMIT
      daemon = await fixture.start({
        args: ['--spool-ttl', '100ms'],
        env: { ...fastRounds, PROVD_FAULT_KILL_BEFORE_ANCHOR: '1' },
      });
      assert.equal((await ingest(daemon.url, hostLines(3, '822'), 'native')).status, 200);
      assert.equal(await daemon.exited, null, 'the daemon was killed');
      const entries = await withDatabase(dbPath(), (db) =>
        queryRows(db, 'SELECT chain_index FROM host_chain ORDER BY chain_index'),
      );
      assert.equal(entries.length, before + 1, 'the entry committed');
      assert.equal(anchorPoints(anchorFile()).length, before, 'its line was never written');

      daemon = await fixture.start({ args: ['--spool-ttl', '100ms'], env: fastRounds });
      const body = await verifyHost(daemon);
      assert.equal(body['status'], 'ok', JSON.stringify(body));
      const [recovered, ...others] = issuesOf(body);
      assert.deepEqual(others, []);
      assert.equal(recovered?.kind, 'host_anchor_recovered');
      assert.match(recovered.message, new RegExp(`^1 host chain entries \\(${before} to ${before}\\)`));
      assert.deepEqual(
        anchorPoints(anchorFile()).map((point) => [point.index, point.recovered]),
        [...(before > 0 ? [[0, undefined]] : []), [before, true]],
      );
      await assertStopsCleanly(daemon);
    });
  }
});
