import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  assertStopsCleanly,
  startDaemon,
  useDaemonFixture,
  useSharedDaemon,
  useStoredDataDir,
} from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

const run = 'run-cp';

/** DSSE's pre-authentication encoding, written here from the spec, not imported from provd. */
function pae(type: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${payload.length} `),
    payload,
  ]);
}

interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** Rewrites the stored envelope of the (one) checkpoint with `edit`. */
async function rewriteEnvelope(db: DuckDBConnection, edit: (envelope: Envelope) => void): Promise<void> {
  const [row] = await queryRows(db, `SELECT hash, envelope FROM checkpoints LIMIT 1`);
  const envelope = JSON.parse(String(row?.['envelope'])) as Envelope;
  edit(envelope);
  await db.run(`UPDATE checkpoints SET envelope = $1 WHERE hash = $2`, [
    JSON.stringify(envelope),
    String(row?.['hash']),
  ]);
}

describe('signed checkpoints', function () {
  const fixture = useDaemonFixture();
  // one daemon for the tests that read only the checkpoints of a run of their own (and cgroup)
  const shared = useSharedDaemon();

  async function storeRun(url: string, runId = run, cgroup = '777'): Promise<void> {
    await bind(url, { run_id: runId, tool_call_id: 'tc', cgroup_id: cgroup });
    const lines = [
      nativeLine({ comm: 'a', cgroup_id: cgroup }),
      nativeLine({ comm: 'b', cgroup_id: cgroup }),
    ];
    assert.equal((await ingest(url, lines.join('\n'), 'native')).status, 200);
  }

  it('verifies with node:crypto alone, from the served key and envelope, and covers the run head', async function () {
    const { daemon } = shared;
    const ownRun = 'run-cp-verified';
    await storeRun(daemon.url, ownRun, '781');
    const checkpoint = (await request(daemon.url, `/v1/graph/checkpoint?run=${ownRun}`)).body;
    const keys = (await request(daemon.url, '/v1/graph/keys')).body['keys'] as Record<string, unknown>[];
    const envelope = checkpoint['envelope'] as Envelope;
    const signature = envelope.signatures[0]!;
    const key = keys.find((entry) => entry['key_id'] === signature.keyid);
    assert.ok(key, 'the signing key is served');
    assert.equal(key['algorithm'], 'ed25519');
    const payload = Buffer.from(envelope.payload, 'base64');
    const publicKey = createPublicKey(String(key['public_key_pem']));
    assert.ok(
      verify(null, pae(envelope.payloadType, payload), publicKey, Buffer.from(signature.sig, 'base64')),
    );
    // the key id is the sha256 of the public key, the address the sha256 of the payload
    const der = publicKey.export({ type: 'spki', format: 'der' });
    const { createHash } = await import('node:crypto');
    assert.equal(signature.keyid, 'sha256:' + createHash('sha256').update(der).digest('hex'));
    assert.equal(checkpoint['hash'], 'sha256:' + createHash('sha256').update(payload).digest('hex'));
    const body = JSON.parse(payload.toString()) as {
      kind: string;
      run_id: string;
      payload: Record<string, unknown>;
    };
    assert.equal(body.kind, 'checkpoint');
    assert.equal(body.run_id, ownRun);
    assert.deepEqual(body.payload['counts'], { context_objects: 1, event_batches: 1, events: 2 });

    const mode = statSync(join(daemon.dataDir, 'signing-key.pem')).mode & 0o777;
    assert.equal(mode, 0o600, 'the private key is readable by its owner only');
    const unknown = await request(daemon.url, '/v1/graph/checkpoint?run=nope');
    assert.equal(unknown.status, 404);
  });

  it('writes a new checkpoint once the run moves, chained after the last and naming the new head', async function () {
    const daemon = await fixture.start();
    await storeRun(daemon.url);
    const first = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    const same = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    assert.equal(same['hash'], first['hash'], 'nothing moved: no new checkpoint');
    assert.equal((await ingest(daemon.url, nativeLine({ comm: 'c' }), 'native')).status, 200);
    const second = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    assert.equal(second['index'], (first['index'] as number) + 1);
    const payload = JSON.parse(
      Buffer.from((second['envelope'] as Envelope).payload, 'base64').toString(),
    ) as { parents: string[]; payload: { counts: Record<string, number> } };
    assert.equal(payload.parents[0], first['hash'], 'chained after the last checkpoint');
    assert.deepEqual(payload.payload.counts, { context_objects: 1, event_batches: 2, events: 3 });
    assert.equal((await request(daemon.url, `/v1/graph/verify?run=${run}`)).body['status'], 'ok');
    // the sealed events are counted on, in the same daemon and after a restart
    const countsAfter = async (url: string): Promise<Record<string, number>> => {
      assert.equal((await ingest(url, nativeLine({ comm: 'c' }), 'native')).status, 200);
      const next = (await request(url, `/v1/graph/checkpoint?run=${run}`)).body;
      return (
        JSON.parse(Buffer.from((next['envelope'] as Envelope).payload, 'base64').toString()) as {
          payload: { counts: Record<string, number> };
        }
      ).payload.counts;
    };
    assert.deepEqual(await countsAfter(daemon.url), { context_objects: 1, event_batches: 3, events: 4 });
    await assertStopsCleanly(daemon);
    const restarted = await fixture.start();
    assert.deepEqual(await countsAfter(restarted.url), { context_objects: 1, event_batches: 4, events: 5 });
  });

  it('writes no checkpoint for a read: verify and checkpoint wait for the sealing round, at most one a second', async function () {
    const { daemon } = shared;
    const run = 'run-cp-reads';
    await storeRun(daemon.url, run, '782');
    const first = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    const rounds = 5;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) {
      assert.equal(
        (await ingest(daemon.url, nativeLine({ comm: `r${i}`, cgroup_id: '782' }), 'native')).status,
        200,
      );
      const verified = (await request(daemon.url, `/v1/graph/verify?run=${run}`)).body;
      assert.equal(verified['status'], 'ok', JSON.stringify(verified));
      assert.equal(verified['warning_count'], 0, 'the event just committed is sealed, not pending');
    }
    const elapsedS = (performance.now() - started) / 1000;
    const last = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    const written = (last['index'] as number) - (first['index'] as number);
    const payload = JSON.parse(Buffer.from((last['envelope'] as Envelope).payload, 'base64').toString()) as {
      payload: { counts: Record<string, number> };
    };
    assert.equal(payload.payload.counts['events'], 2 + rounds, 'each verify covered the line before it');
    // a verify that wrote its own checkpoint wrote one per call, however fast the calls came
    assert.ok(
      written <= Math.ceil(elapsedS) + 1,
      `${written} checkpoints in ${elapsedS.toFixed(1)} s: reads brought rounds closer than a second`,
    );
    const again = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    assert.equal(again['index'], last['index'], 'nothing moved: a read writes nothing');
  });

  it('writes none for a run whose heads moved in the same instant as its checkpoint, but no further', async function () {
    const first = await fixture.start();
    await storeRun(first.url);
    const checkpoint = (await request(first.url, `/v1/graph/checkpoint?run=${run}`)).body;
    await assertStopsCleanly(first);
    // instants have millisecond grain: a commit and the checkpoint after it can share one
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      db.run(
        `UPDATE run_heads SET updated_ns = (SELECT updated_ns FROM run_heads WHERE run_id = '${run}' AND chain = 'checkpoint')
         WHERE run_id = '${run}'`,
      ),
    );
    const daemon = await fixture.start();
    const same = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    assert.equal(same['hash'], checkpoint['hash'], 'the heads it names are the heads: nothing to sign');
  });

  /** The run stored and verified ok, its daemon stopped: once for the file, copied into each test's data dir. */
  const verifiedRun = useStoredDataDir(async (daemon) => {
    await storeRun(daemon.url);
    assert.equal((await request(daemon.url, `/v1/graph/verify?run=${run}`)).body['status'], 'ok');
  });

  async function tampered(tamper: (db: DuckDBConnection) => Promise<unknown>): Promise<string[]> {
    verifiedRun.copyInto(fixture.dataDir);
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), tamper);
    const daemon = await fixture.start();
    const { body } = await request(daemon.url, `/v1/graph/verify?run=${run}`);
    assert.equal(body['status'], 'failed', JSON.stringify(body));
    return [...new Set((body['issues'] as { kind: string }[]).map((issue) => issue.kind))].sort();
  }

  it('names checkpoint_signature_invalid when a signature was corrupted', async function () {
    const kinds = await tampered((db) =>
      rewriteEnvelope(db, (envelope) => {
        const sig = Buffer.from(envelope.signatures[0]!.sig, 'base64');
        sig[0] = sig[0]! ^ 0xff;
        envelope.signatures[0]!.sig = sig.toString('base64');
      }),
    );
    assert.deepEqual(kinds, ['checkpoint_signature_invalid']);
  });

  it('names checkpoint_key_unknown when a checkpoint was re-signed by another key', async function () {
    const kinds = await tampered((db) =>
      rewriteEnvelope(db, (envelope) => {
        const { privateKey } = generateKeyPairSync('ed25519');
        const sig = sign(
          null,
          pae(envelope.payloadType, Buffer.from(envelope.payload, 'base64')),
          privateKey,
        );
        envelope.signatures = [{ keyid: 'sha256:' + '1'.repeat(64), sig: sig.toString('base64') }];
      }),
    );
    assert.deepEqual(kinds, ['checkpoint_key_unknown']);
  });

  it('names checkpoint_payload_mismatch when an envelope carries other bytes', async function () {
    const kinds = await tampered((db) =>
      rewriteEnvelope(db, (envelope) => {
        envelope.payload = Buffer.from('{"kind":"checkpoint"}').toString('base64');
      }),
    );
    assert.deepEqual(kinds, ['checkpoint_payload_mismatch']);
  });

  it('refuses to start with a --signing-key that is not an ed25519 private key, naming the option', async function () {
    const file = join(fixture.dataDir, 'rsa.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await assert.rejects(
      startDaemon({ dataDir: fixture.dataDir, args: ['--signing-key', file] }),
      /--signing-key .*ed25519/,
    );
  });

  it('signs with a key given by --signing-key and serves it as current', async function () {
    const file = join(fixture.dataDir, 'mine.pem');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const daemon = await fixture.start({ args: ['--signing-key', file] });
    await storeRun(daemon.url);
    const checkpoint = (await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).body;
    const envelope = checkpoint['envelope'] as Envelope;
    const payload = Buffer.from(envelope.payload, 'base64');
    assert.ok(
      verify(
        null,
        pae(envelope.payloadType, payload),
        publicKey,
        Buffer.from(envelope.signatures[0]!.sig, 'base64'),
      ),
    );
    const keys = (await request(daemon.url, '/v1/graph/keys')).body['keys'] as Record<string, unknown>[];
    assert.equal(keys[0]?.['key_id'], envelope.signatures[0]!.keyid);
    assert.equal(keys[0]?.['current'], true);
  });
});
