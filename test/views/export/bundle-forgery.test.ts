import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { VerifyResult } from '../../../src/provenance/verify-result.js';
import { runCli, type CliRun } from '../../support/cli.js';
import { useSharedDaemon } from '../../support/daemon.js';
import { request } from '../../support/http.js';
import { ingest, nativeLine } from '../../support/telemetry.js';
import { useTempDir } from '../../support/temp-dir.js';
import {
  forgerKey,
  parquetRows,
  readManifest,
  resignCheckpoints,
  rewriteParquet,
  writeForgedManifest,
} from './bundle-forger.js';
import { seedRun } from './export-support.js';

/** The genuine bundle's directory under an export root. */
const victimDir = (out: string): string => join(out, 'host=test-host', 'date=2026-01-01', 'run=victim-run');

/** Every result of `provd verify --bundle DIR --json ARGS`, and its exit code. */
async function verifyAll(dir: string, args: string[]): Promise<{ run: CliRun; results: VerifyResult[] }> {
  const run = await runCli(['verify', '--bundle', dir, '--json', ...args]);
  const results = run.stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as VerifyResult);
  return { run, results };
}

const kindsOf = (result: VerifyResult | undefined): string[] =>
  (result?.issues ?? []).map((issue) => issue.kind);

describe('provd verify --bundle trusts only what the daemon signed', function () {
  const shared = useSharedDaemon({ args: ['--host-name', 'Test-Host'] });
  const keys = useTempDir('provd-forgery-keys-', { per: 'suite' });
  const work = useTempDir('provd-forgery-');
  /** `--key` with the daemon's public key, as a user pins it */
  let pinned: string[];

  before(async function () {
    await seedRun(shared.daemon.url, 'victim-run', '811', 12);
    // the read an attacker wants gone from the evidence
    const secret = nativeLine({
      event_type: 'file_open',
      timestamp: '2026-01-01T00:00:30Z',
      cgroup_id: '811',
      path: '/root/.ssh/id_rsa',
    });
    assert.equal((await ingest(shared.daemon.url, secret + '\n', 'native')).status, 200);
    const served = await request(shared.daemon.url, '/v1/graph/keys');
    const pem = (served.body['keys'] as { public_key_pem: string }[])[0]!.public_key_pem;
    writeFileSync(join(keys.path, 'daemon.pub'), pem);
    pinned = ['--key', join(keys.path, 'daemon.pub')];
  });

  /** A genuine bundle of victim-run, written by the real `provd export` under `out`. */
  async function exportVictim(out: string): Promise<string> {
    const exported = await runCli(['export', 'victim-run', '--out', out, '--url', shared.daemon.url]);
    assert.equal(exported.code, 0, exported.stderr);
    return victimDir(out);
  }

  /** Drops the secret_path event from a bundle's events.parquet (and checks there was one). */
  async function dropSecretRead(dir: string): Promise<void> {
    const file = join(dir, 'events.parquet');
    assert.equal((await parquetRows(file, "type_name = 'secret_path'")).length, 1);
    await rewriteParquet(file, "SELECT * FROM t WHERE type_name <> 'secret_path'");
  }

  it('passes the genuine bundle under --key, and says what it checked without it', async function () {
    const dir = await exportVictim(work.path);
    const ok = await verifyAll(dir, pinned);
    assert.deepEqual(
      [ok.run.code, ok.results[0]?.status, ok.results[0]?.issue_count],
      [0, 'ok', 0],
      ok.run.stdout,
    );
    // no --key: the signer is the bundle's own say-so; refused unless accepted, and said either way
    const unpinned = await verifyAll(dir, []);
    assert.equal(unpinned.run.code, 1);
    assert.deepEqual(kindsOf(unpinned.results[0]), ['bundle_signer_unpinned']);
    const human = await runCli(['verify', '--bundle', dir]);
    assert.match(human.stdout, /the signer was not checked/);
    const accepted = await verifyAll(dir, ['--trust-bundle-key']);
    assert.deepEqual([accepted.run.code, accepted.results[0]?.status], [0, 'ok']);
    assert.deepEqual(
      (accepted.results[0]?.issues ?? []).map((issue) => [issue.severity, issue.kind]),
      [['warning', 'bundle_signer_unpinned']],
    );
  });

  it('fails a run bundle passed off as a range one with an event dropped (scope is signed)', async function () {
    const dir = await exportVictim(work.path);
    await dropSecretRead(dir);
    const manifest = readManifest(dir);
    manifest.scope = 'range';
    manifest.files = manifest.files.filter((file) => file.path === 'events.parquet');
    for (const name of readdirSync(dir))
      if (name !== 'manifest.json' && name !== 'events.parquet') rmSync(join(dir, name));
    writeForgedManifest(dir, manifest);
    const { run, results } = await verifyAll(dir, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.equal(results[0]?.status, 'failed');
    assert.deepEqual(kindsOf(results[0]), ['bundle_manifest_unsigned']);
  });

  it('fails the same forgery when the genuine envelope is kept: the signed manifest says run', async function () {
    const dir = await exportVictim(work.path);
    await dropSecretRead(dir);
    const manifest = readManifest(dir);
    manifest.scope = 'range';
    manifest.files = manifest.files.filter((file) => file.path === 'events.parquet');
    for (const name of readdirSync(dir))
      if (!['manifest.json', 'manifest.dsse.json', 'events.parquet'].includes(name)) rmSync(join(dir, name));
    writeForgedManifest(dir, manifest);
    const { run, results } = await verifyAll(dir, pinned);
    assert.equal(run.code, 1);
    const kinds = kindsOf(results[0]);
    assert.ok(kinds.includes('bundle_manifest_mismatch'), kinds.join());
    assert.ok(kinds.includes('bundle_file_missing') && kinds.includes('bundle_file_mismatch'), kinds.join());
  });

  it('reads the forged directory run=[v]ictim-run, never its genuine sibling a glob would match', async function () {
    const genuine = await exportVictim(work.path);
    const forged = join(dirname(genuine), 'run=[v]ictim-run');
    cpSync(genuine, forged, { recursive: true });
    await dropSecretRead(forged);
    writeForgedManifest(forged, readManifest(forged));
    const { run, results } = await verifyAll(forged, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.equal(results[0]?.status, 'failed');
    const kinds = kindsOf(results[0]);
    assert.ok(kinds.includes('bundle_manifest_mismatch'), kinds.join());
    assert.ok(kinds.includes('bundle_directory_mismatch'), kinds.join());
    // and what it verified were the forged bytes: the signed digest of events.parquet is not theirs
    assert.ok(kinds.includes('bundle_file_mismatch'), kinds.join());
  });

  it('verifies the bytes it hashed: a genuine bundle under exports[1], a tampered copy under exports1', async function () {
    const dir = await exportVictim(join(work.path, 'exports[1]'));
    // the sibling the pattern exports[1] matches, holding the same bundle with the secret read dropped
    const tampered = victimDir(join(work.path, 'exports1'));
    cpSync(dir, tampered, { recursive: true });
    await dropSecretRead(tampered);
    const { run, results } = await verifyAll(dir, pinned);
    assert.deepEqual([run.code, results[0]?.status], [0, 'ok'], run.stdout + run.stderr);
  });

  it('fails a bundle re-signed with another key under --key, and names that key without it', async function () {
    const dir = await exportVictim(work.path);
    const mallory = forgerKey();
    await resignCheckpoints(dir, mallory);
    writeForgedManifest(dir, readManifest(dir), mallory);
    const under = await verifyAll(dir, pinned);
    assert.equal(under.run.code, 1);
    const kinds = kindsOf(under.results[0]);
    assert.ok(
      kinds.includes('bundle_manifest_signature_invalid') || kinds.includes('checkpoint_key_unknown'),
      kinds.join(),
    );
    // without --key the forger's own key would pass: verify refuses to call that checked
    const unpinned = await verifyAll(dir, []);
    assert.equal(unpinned.run.code, 1, unpinned.run.stdout);
    assert.deepEqual(kindsOf(unpinned.results[0]), ['bundle_signer_unpinned']);
    assert.equal(unpinned.results[0]?.issues?.[0]?.id, mallory.keyId);
  });

  it('fails a manifest that lists a file twice, even one the daemon key signed', async function () {
    const dir = await exportVictim(work.path);
    const manifest = readManifest(dir);
    manifest.files.push({ ...manifest.files.find((file) => file.path === 'events.parquet')! });
    writeForgedManifest(dir, manifest);
    const { run, results } = await verifyAll(dir, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.ok(kindsOf(results[0]).includes('bundle_manifest_mismatch'), kindsOf(results[0]).join());
    // behind the signature: a signed manifest listing a file twice is refused too
    writeForgedManifest(dir, manifest, forgerKey(join(shared.daemon.dataDir, 'signing-key.pem')));
    const signed = await verifyAll(dir, pinned);
    assert.equal(signed.run.code, 1);
    assert.deepEqual(kindsOf(signed.results[0]), ['bundle_manifest_invalid']);
    assert.match(signed.results[0]?.issues?.[0]?.message ?? '', /events\.parquet twice/);
  });

  it('fails a bundle holding a file its manifest does not list, inside a partition-style directory too', async function () {
    const dir = await exportVictim(work.path);
    // a fleet query over **/events.parquet would read this one as well
    mkdirSync(join(dir, 'x=1'));
    cpSync(join(dir, 'events.parquet'), join(dir, 'x=1', 'events.parquet'));
    const { run, results } = await verifyAll(dir, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.deepEqual(
      (results[0]?.issues ?? []).map((issue) => [issue.kind, issue.id]),
      [['bundle_file_unlisted', 'x=1']],
    );
  });

  it('fails events planted in a run directory with no manifest beside the genuine bundle', async function () {
    const dir = await exportVictim(work.path);
    const planted = join(dirname(dir), 'run=evil-run');
    mkdirSync(planted);
    cpSync(join(dir, 'events.parquet'), join(planted, 'events.parquet'));
    const { run, results } = await verifyAll(work.path, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.deepEqual(
      results.map((result) => [result.status, kindsOf(result)]),
      [
        ['failed', ['bundle_file_unlisted']],
        ['ok', []],
      ],
    );
    assert.equal(results[0]?.issues?.[0]?.id, join(planted, 'events.parquet'));
  });

  it('fails a bundle whose run directory was renamed', async function () {
    const dir = await exportVictim(work.path);
    const renamed = join(dirname(dir), 'run=other-run');
    renameSync(dir, renamed);
    const { run, results } = await verifyAll(renamed, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.deepEqual(kindsOf(results[0]), ['bundle_directory_mismatch']);
  });

  it('fails a listed file replaced by a link to the genuine one', async function () {
    const dir = await exportVictim(work.path);
    const elsewhere = join(work.path, 'elsewhere.parquet');
    renameSync(join(dir, 'events.parquet'), elsewhere);
    const { symlinkSync } = await import('node:fs');
    symlinkSync(elsewhere, join(dir, 'events.parquet'));
    const { run, results } = await verifyAll(dir, pinned);
    assert.equal(run.code, 1, run.stdout);
    assert.deepEqual(kindsOf(results[0]), ['bundle_file_missing']);
    assert.match(results[0]?.issues?.[0]?.message ?? '', /is a link/);
  });

  it('verifies a range bundle under --key, and fails one whose events were edited', async function () {
    const args = ['export', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z'];
    const exported = await runCli([...args, '--out', work.path, '--url', shared.daemon.url]);
    assert.equal(exported.code, 0, exported.stderr);
    const dir = victimDir(work.path);
    const ok = await verifyAll(dir, pinned);
    assert.deepEqual([ok.run.code, kindsOf(ok.results[0])], [0, ['bundle_events_only']], ok.run.stdout);
    await dropSecretRead(dir);
    writeForgedManifest(dir, readManifest(dir));
    const forged = await verifyAll(dir, pinned);
    assert.equal(forged.run.code, 1);
    assert.ok(
      kindsOf(forged.results[0]).includes('bundle_manifest_mismatch'),
      kindsOf(forged.results[0]).join(),
    );
  });
});
