import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VerifyResult } from '../../../src/provenance/verify-result.js';
import { runCli } from '../../support/cli.js';
import { useSharedDaemon } from '../../support/daemon.js';
import { queryRows, withDatabase } from '../../support/duckdb.js';
import { assertErrors, request } from '../../support/http.js';
import { useTempDir } from '../../support/temp-dir.js';
import { forgerKey, readManifest, rewriteParquet, writeForgedManifest } from './bundle-forger.js';
import { archivePaths, fetchBytes, seedRun } from './export-support.js';

const bundleDir = (out: string): string => join(out, 'host=test-host', 'date=2026-01-01', 'run=run-a');

/** `provd verify --bundle DIR --json EXTRA` and its one VerifyResult. */
async function verifyJson(
  dir: string,
  extra: string[],
): Promise<{ code: number | null; result: VerifyResult }> {
  const run = await runCli(['verify', '--bundle', dir, '--json', ...extra]);
  const [line, ...rest] = run.stdout.trim().split('\n');
  assert.deepEqual(rest, [], run.stdout);
  return { code: run.code, result: JSON.parse(line!) as VerifyResult };
}

describe('export', function () {
  const shared = useSharedDaemon({ args: ['--host-name', 'Test-Host'] });
  const work = useTempDir('provd-export-');
  const keys = useTempDir('provd-export-keys-', { per: 'suite' });
  /** `--key` with the daemon's public key, as a user pins it */
  let pinned: string[];
  /** The manifest re-signed with the daemon's own key: what only a holder of that key could do */
  const resignAsDaemon = (dir: string): void =>
    writeForgedManifest(dir, readManifest(dir), forgerKey(join(shared.daemon.dataDir, 'signing-key.pem')));

  before(async function () {
    const served = await request(shared.daemon.url, '/v1/graph/keys');
    writeFileSync(
      join(keys.path, 'daemon.pub'),
      (served.body['keys'] as { public_key_pem: string }[])[0]!.public_key_pem,
    );
    pinned = ['--key', join(keys.path, 'daemon.pub')];
    await seedRun(shared.daemon.url, 'run-a', '801', 30);
    // a recorded tool call puts context objects in the run's graph beside its event batches
    const record = {
      run_id: 'run-a',
      tool_call_id: 'call-2',
      command: 'make',
      args: ['all'],
      execute: false,
    };
    const recorded = await request(shared.daemon.url, '/v1/record', {
      method: 'POST',
      body: JSON.stringify(record),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    await seedRun(shared.daemon.url, 'run-b', '802', 5, '2026-01-02');
  });

  it('answers a run as a tar archive of its Hive directory, every file named in its manifest', async function () {
    const answer = await fetchBytes(shared.daemon.url, '/v1/export?run=run-a');
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'application/x-tar');
    const dir = 'host=test-host/date=2026-01-01/run=run-a';
    const names = ['events', 'objects', 'heads', 'checkpoints', 'artifacts'].map((t) => `${t}.parquet`);
    assert.deepEqual(
      archivePaths(answer.bytes).sort(),
      [...names, 'keys.json', 'manifest.json', 'manifest.dsse.json'].map((n) => `${dir}/${n}`).sort(),
    );
    // nothing is left behind in the daemon's private export directory
    assert.deepEqual(readdirSync(join(shared.daemon.dataDir, 'exports')), []);
  });

  it('writes a bundle provd verify --bundle finds ok with no daemon under the served key, and says so only when asked under its own', async function () {
    const exported = await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout.trim(), bundleDir(work.path));
    const manifest = JSON.parse(readFileSync(join(bundleDir(work.path), 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(manifest['schema_version'], 'provenance.export_manifest/v1');
    assert.equal(manifest['host'], 'test-host');
    assert.equal(manifest['unsealed_events'], 0);
    const files = manifest['files'] as { path: string; rows: number }[];
    assert.equal(files.find((file) => file.path === 'events.parquet')?.rows, 30);
    assert.equal(manifest['directory'], 'host=test-host/date=2026-01-01/run=run-a');
    const { code, result } = await verifyJson(work.path, pinned);
    assert.deepEqual(
      [code, result.status, result.run_id, result.issue_count],
      [0, 'ok', 'run-a', 0],
      JSON.stringify(result),
    );
    const daemonVerdict = await request(shared.daemon.url, '/v1/graph/verify?run=run-a');
    assert.equal(daemonVerdict.body['status'], 'ok');
    const own = await verifyJson(work.path, ['--trust-bundle-key']);
    assert.deepEqual([own.code, own.result.status, own.result.warning_count], [0, 'ok', 1]);
    const human = await runCli(['verify', '--bundle', work.path, ...pinned]);
    assert.match(human.stdout, /^ok run-a .*run=run-a: 0 errors, 0 warnings\n$/);
    const both = await runCli(['verify', '--bundle', work.path, ...pinned, '--trust-bundle-key']);
    assert.deepEqual([both.code, /exclude each other/.test(both.stderr)], [2, true]);
  });

  it('fails a bundle with an edited event row: its file no longer matches the manifest', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    const events = join(bundleDir(work.path), 'events.parquet');
    await rewriteParquet(
      events,
      "SELECT * REPLACE (CASE WHEN seq = (SELECT min(seq) FROM t) THEN 'evil' ELSE comm END AS comm) FROM t",
    );
    const { code, result } = await verifyJson(work.path, pinned);
    assert.equal(code, 1);
    assert.equal(result.status, 'failed');
    const kinds = (result.issues ?? []).map((issue) => issue.kind);
    assert.deepEqual(kinds, ['bundle_file_mismatch']);
  });

  it('fails an edited row even when the manifest was rewritten to match it and signed with the daemon key', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    const dir = bundleDir(work.path);
    await rewriteParquet(
      join(dir, 'events.parquet'),
      "SELECT * REPLACE (CASE WHEN seq = (SELECT min(seq) FROM t) THEN 'evil' ELSE comm END AS comm) FROM t",
    );
    resignAsDaemon(dir);
    const { result } = await verifyJson(work.path, pinned);
    assert.equal(result.status, 'failed');
    assert.deepEqual([...new Set((result.issues ?? []).map((issue) => issue.kind))], ['event_hash_mismatch']);
  });

  it('verifies a bundle written before login_uid was a column, and fails one whose login_uid was set afterwards', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    const dir = bundleDir(work.path);
    const events = join(dir, 'events.parquet');
    // format 18's bundle: the same rows without the column (the manifest signed again to match)
    await rewriteParquet(events, 'SELECT * EXCLUDE (login_uid) FROM t');
    resignAsDaemon(dir);
    const older = await verifyJson(work.path, pinned);
    assert.deepEqual([older.code, older.result.status], [0, 'ok'], JSON.stringify(older.result));
    // the hash covers login_uid once set: a login uid given to one event afterwards is found
    const again = join(work.path, 'again');
    const exported = await runCli(['export', 'run-a', '--out', again, '--url', shared.daemon.url]);
    assert.equal(exported.code, 0, exported.stderr);
    await rewriteParquet(
      join(bundleDir(again), 'events.parquet'),
      'SELECT * REPLACE (CASE WHEN seq = (SELECT min(seq) FROM t) THEN 0 ELSE login_uid END AS login_uid) FROM t',
    );
    resignAsDaemon(bundleDir(again));
    const forged = await verifyJson(again, pinned);
    assert.equal(forged.result.status, 'failed');
    assert.deepEqual(
      [...new Set((forged.result.issues ?? []).map((issue) => issue.kind))],
      ['event_hash_mismatch'],
    );
  });

  it('fails a bundle with a deleted file', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    rmSync(join(bundleDir(work.path), 'checkpoints.parquet'));
    const { code, result } = await verifyJson(work.path, pinned);
    assert.equal(code, 1);
    assert.deepEqual(
      (result.issues ?? []).map((issue) => [issue.kind, issue.id]),
      [['bundle_file_missing', 'checkpoints.parquet']],
    );
  });

  it('fails a bundle whose checkpoint envelope was changed, even with the manifest re-signed by the daemon key', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    const dir = bundleDir(work.path);
    // another valid-looking signature: the last base64 characters of the signature swapped
    await rewriteParquet(
      join(dir, 'checkpoints.parquet'),
      `SELECT * REPLACE (regexp_replace(envelope, '"sig":"[A-Za-z0-9+/]{8}', '"sig":"AAAAAAAA') AS envelope) FROM t`,
    );
    const mismatch = await verifyJson(work.path, pinned);
    assert.equal(mismatch.result.status, 'failed');
    resignAsDaemon(dir);
    const { result } = await verifyJson(work.path, pinned);
    assert.equal(result.status, 'failed');
    assert.deepEqual(
      [...new Set((result.issues ?? []).map((issue) => issue.kind))],
      ['checkpoint_signature_invalid'],
    );
  });

  it('fails a bundle checked against a key that did not sign it', async function () {
    await runCli(['export', 'run-a', '--out', work.path, '--url', shared.daemon.url]);
    const { generateKeyPairSync } = await import('node:crypto');
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(join(work.path, 'other.pub'), other);
    const { code, result } = await verifyJson(work.path, ['--key', join(work.path, 'other.pub')]);
    assert.equal(code, 1);
    assert.deepEqual(
      (result.issues ?? []).map((issue) => issue.kind),
      ['bundle_manifest_signature_invalid'],
      JSON.stringify(result),
    );
  });

  it('exports a range one directory per run and day, refusing to overwrite an earlier export', async function () {
    const args = [
      'export',
      '--from',
      '2026-01-01T00:00:00Z',
      '--to',
      '2026-01-03T00:00:00Z',
      '--out',
      work.path,
      '--url',
      shared.daemon.url,
    ];
    const first = await runCli(args);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n').sort(), [
      join(work.path, 'host=test-host/date=2026-01-01/run=run-a'),
      join(work.path, 'host=test-host/date=2026-01-02/run=run-b'),
    ]);
    const { code, result } = await verifyJson(
      join(work.path, 'host=test-host/date=2026-01-02/run=run-b'),
      pinned,
    );
    assert.deepEqual([code, result.status, result.warning_count], [0, 'ok', 1]);
    const before = readFileSync(join(work.path, 'host=test-host/date=2026-01-02/run=run-b/events.parquet'));
    const again = await runCli(args);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /PROVD_ERR_EXPORT_EXISTS/);
    assert.deepEqual(
      readFileSync(join(work.path, 'host=test-host/date=2026-01-02/run=run-b/events.parquet')),
      before,
    );
  });

  it('keeps a hostile run id inside its partition directory', async function () {
    const run = '../../escape me/..';
    // another day than the range test exports, whatever order the tests run in
    await seedRun(shared.daemon.url, run, '803', 2, '2026-02-01');
    const exported = await runCli(['export', run, '--out', work.path, '--url', shared.daemon.url]);
    assert.equal(exported.code, 0, exported.stderr);
    const dir = join(work.path, 'host=test-host', 'date=2026-02-01', 'run=..%2F..%2Fescape%20me%2F..');
    assert.equal(exported.stdout.trim(), dir);
    assert.deepEqual(readdirSync(work.path), ['host=test-host']);
    const { result } = await verifyJson(dir, pinned);
    assert.deepEqual([result.status, result.run_id], ['ok', run]);
    const rows = await withDatabase(':memory:', (connection) =>
      queryRows(
        connection,
        `SELECT DISTINCT run, run_id FROM read_parquet('${dir}/events.parquet', hive_partitioning = true)`,
      ),
    );
    assert.deepEqual(rows, [{ run, run_id: run }]);
  });

  it('exports and verifies a run whose id is longer than a file name may be, in a directory of its own', async function () {
    // 100 characters of id, 302 bytes of `run=` segment once encoded: the export answered 500
    // ENAMETOOLONG; the two ids are alike past where their segments are cut
    const long = `r${' '.repeat(99)}`;
    const longer = `r${' '.repeat(98)}s`;
    await seedRun(shared.daemon.url, long, '804', 2, '2026-03-01');
    await seedRun(shared.daemon.url, longer, '805', 2, '2026-03-01');
    const dirs: string[] = [];
    for (const run of [long, longer]) {
      const exported = await runCli(['export', run, '--out', work.path, '--url', shared.daemon.url]);
      assert.equal(exported.code, 0, exported.stderr);
      const dir = exported.stdout.trim();
      dirs.push(dir);
      const segment = dir.split('/').pop()!;
      assert.ok(Buffer.byteLength(segment) <= 255, segment);
      assert.match(segment, /^run=r(%20)+~[0-9a-f]{32}$/);
      const { result } = await verifyJson(dir, pinned);
      assert.deepEqual([result.status, result.run_id], ['ok', run]);
    }
    assert.notEqual(dirs[0], dirs[1]);
  });

  it('names every option value in the help of export and verify', async function () {
    const exportHelp = await runCli(['export', '--help']);
    assert.match(exportHelp.stdout, /--out DIR/);
    assert.match(exportHelp.stdout, /--from TIME/);
    const verifyHelp = await runCli(['verify', '--help']);
    assert.match(verifyHelp.stdout, /--bundle DIR/);
    assert.match(verifyHelp.stdout, /--key FILE/);
    for (const help of [exportHelp, verifyHelp]) {
      assert.equal(help.code, 0);
      assert.doesNotMatch(help.stdout, / VALUE\b|#\d/);
    }
  });

  it('refuses bad parameters with invalid_argument and an unknown run with run_not_found', async function () {
    await assertErrors(shared.daemon.url, [
      ['/v1/export', 400, 'invalid_argument'],
      ['/v1/export?from=2026-01-01T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?to=2026-01-01T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?run=run-a&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?from=yesterday&to=2026-01-02T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/export?run=run-a&run=run-b', 400, 'invalid_argument'],
      ['/v1/export?run=nobody', 404, 'run_not_found'],
    ]);
    const cli = await runCli([
      'export',
      '--from',
      '2026-01-01T00:00:00Z',
      '--out',
      work.path,
      '--url',
      shared.daemon.url,
    ]);
    assert.equal(cli.code, 2);
    const unknown = await runCli(['export', 'nobody', '--out', work.path, '--url', shared.daemon.url]);
    assert.deepEqual([unknown.code, /run_not_found/.test(unknown.stderr)], [1, true]);
    assert.deepEqual(readdirSync(work.path), []);
  });

  describe('behind a token', function () {
    const shared = useSharedDaemon({ authToken: 'export-token' });
    const work = useTempDir('provd-export-auth-');

    it('answers 401 without the token or with a wrong one, and exports with it', async function () {
      for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
        const answer = await fetchBytes(shared.daemon.url, '/v1/export?run=any', headers);
        assert.equal(answer.status, 401);
        const body = JSON.parse(Buffer.from(answer.bytes).toString('utf8')) as { error: { code: string } };
        assert.equal(body.error.code, 'unauthorized');
      }
      const refused = await runCli(['export', 'any', '--out', work.path, '--url', shared.daemon.url]);
      assert.deepEqual([refused.code, /unauthorized/.test(refused.stderr)], [1, true]);
      const authorized = await runCli(['export', 'any', '--out', work.path, '--url', shared.daemon.url], {
        env: { PROVD_AUTH_TOKEN: 'export-token' },
      });
      // past the token: the run is unknown
      assert.match(authorized.stderr, /run_not_found/);
    });
  });
});
