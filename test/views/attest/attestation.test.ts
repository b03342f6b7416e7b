import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromJSON } from '@sigstore/bundle';
import { PublicKeyDetails, type TrustedRoot } from '@sigstore/protobuf-specs';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import { runCli, runDaemonCli } from '../../support/cli.js';
import { startDaemon, useSharedDaemon } from '../../support/daemon.js';
import { useTempDir } from '../../support/temp-dir.js';
import { assertErrors, request } from '../../support/http.js';
import { nativeLine } from '../../support/telemetry.js';

const token = 'attest-test-token';
const auth = { authorization: `Bearer ${token}` };
const run = 'run-attest';
const python = '/usr/bin/python3';
const pythonCheck = fileURLToPath(new URL('../../../../examples/verify-attestation.py', import.meta.url));
const hex = (text: string): string => createHash('sha256').update(text).digest('hex');

interface Bundle {
  mediaType: string;
  verificationMaterial: { publicKey: { hint: string }; tlogEntries: unknown[] };
  dsseEnvelope: { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
}

interface Descriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

/**
 * Verifies `bundle` with sigstore-js's verifier, trusting only `publicKeyPem` under the bundle's
 * hint: no Fulcio certificate, transparency log or timestamp is asked for, as provd has none.
 */
function sigstoreVerify(bundle: unknown, hint: string, publicKeyPem: string): void {
  const key = createPublicKey(publicKeyPem);
  const der = key.export({ type: 'spki', format: 'der' });
  const keyDetails =
    key.asymmetricKeyType === 'ec' ? PublicKeyDetails.PKIX_ECDSA_P256_SHA_256 : PublicKeyDetails.PKIX_ED25519;
  const noAuthorities = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
  } as unknown as TrustedRoot;
  const trust = toTrustMaterial(noAuthorities, {
    [hint]: { rawBytes: der, keyDetails },
  });
  const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
  verifier.verify(toSignedEntity(bundleFromJSON(bundle)));
}

/** Whether Debian's securesystemslib is importable by the system Python. */
function hasSecuresystemslib(): boolean {
  return (
    existsSync(python) &&
    spawnSync(python, ['-c', 'import securesystemslib.signer'], { stdio: 'ignore' }).status === 0
  );
}

describe('GET /v1/graph/attestation and provd attest', function () {
  const shared = useSharedDaemon({ authToken: token });
  let work = '';
  let keyFile = '';
  let recordedAt = '';
  before(async function () {
    const { url } = shared.daemon;
    work = mkdtempSync(join(tmpdir(), 'provd-attest-'));
    const post = (path: string, body: string) => request(url, path, { method: 'POST', headers: auth, body });
    const bound = await post(
      '/v1/telemetry/bind',
      JSON.stringify({ run_id: run, tool_call_id: 'tc-sensor', cgroup_id: '777' }),
    );
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    const lines = [
      nativeLine({ path: '/usr/bin/curl', argv: ['curl', '-s', 'https://example.com/'], pid: 50, tgid: 50 }),
      nativeLine({ event_type: 'dns_query', query: 'example.com', dst_ip: '127.0.0.53', dst_port: 53 }),
      nativeLine({
        event_type: 'network_connect',
        dst_ip: '93.184.216.34',
        dst_port: 443,
        pid: 50,
        tgid: 50,
        comm: 'curl',
      }),
      nativeLine({
        event_type: 'network_connect',
        dst_ip: '93.184.216.34',
        dst_port: 443,
        pid: 50,
        tgid: 50,
        comm: 'curl',
      }),
      nativeLine({ event_type: 'file_write', path: '/tmp/unhashed.txt', flags: 'O_WRONLY|O_CREAT' }),
      // the producer says it dropped events meanwhile: the trace is known to miss some
      nativeLine({ event_type: 'capture_loss', loss: 'syscall_drop', lost_events: 7 }),
    ];
    const ingested = await post('/v1/telemetry/ingest?format=native', lines.join('\n'));
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));
    assert.equal(ingested.body['accepted'], lines.length);
    const recorded = await post(
      '/v1/record',
      JSON.stringify({
        run_id: run,
        tool_call_id: 'tc-write',
        command: 'sh',
        args: ['-c', 'echo new > made.txt'],
        cwd: work,
      }),
    );
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    recordedAt = new Date().toISOString();
    const keys = (await request(url, '/v1/graph/keys', { headers: auth })).body['keys'] as Record<
      string,
      string
    >[];
    keyFile = join(work, 'provd.pub');
    writeFileSync(keyFile, keys[0]!['public_key_pem']!);
  });
  after(function () {
    rmSync(work, { recursive: true, force: true });
  });

  /** Binds `run` to `cgroup`, ingests `lines` (all accepted), and answers its attestation's bundle. */
  async function attestLines(run: string, cgroup: string, lines: string[]): Promise<Bundle> {
    const { url } = shared.daemon;
    const post = (path: string, body: string) => request(url, path, { method: 'POST', headers: auth, body });
    const bound = await post(
      '/v1/telemetry/bind',
      JSON.stringify({ run_id: run, tool_call_id: 'tc', cgroup_id: cgroup }),
    );
    assert.equal(bound.status, 200);
    const ingested = await post('/v1/telemetry/ingest?format=native', lines.join('\n'));
    assert.equal(ingested.body['accepted'], lines.length, JSON.stringify(ingested.body));
    const answer = await request(url, `/v1/graph/attestation?run=${run}`, { headers: auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body['bundle'] as Bundle;
  }

  async function attest(): Promise<Record<string, unknown>> {
    const answer = await request(shared.daemon.url, `/v1/graph/attestation?run=${run}`, { headers: auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  }

  it("states the run's checkpoint and written files as subjects, its execs, network and files as a runtime trace", async function () {
    const body = await attest();
    assert.equal(body['schema_version'], 'provenance.attestation/v1');
    const bundle = body['bundle'] as Bundle;
    assert.equal(bundle.mediaType, 'application/vnd.dev.sigstore.bundle.v0.3+json');
    assert.equal(bundle.verificationMaterial.publicKey.hint, body['key_id']);
    assert.equal(bundle.dsseEnvelope.payloadType, 'application/vnd.in-toto+json');
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      _type: string;
      predicateType: string;
      subject: Descriptor[];
      predicate: {
        monitoredProcess: Record<string, string>;
        monitorLog: {
          process: Record<string, unknown>[];
          network: Record<string, unknown>[];
          fileAccess: Descriptor[];
        };
        metadata: Record<string, string>;
        provdOmitted: Record<string, number>;
        provdCoverage: Record<string, number>;
      };
    };
    assert.equal(statement._type, 'https://in-toto.io/Statement/v1');
    assert.equal(statement.predicateType, 'https://in-toto.io/attestation/runtime-trace/v0.2');
    // the first subject is the run's latest checkpoint, as GET /v1/graph/checkpoint serves it
    const checkpoint = (
      await request(shared.daemon.url, `/v1/graph/checkpoint?run=${run}`, { headers: auth })
    ).body;
    assert.deepEqual(statement.subject[0]?.digest, {
      sha256: String(checkpoint['hash']).slice('sha256:'.length),
    });
    assert.equal(statement.subject[0]?.name, `run:${run}`);
    // the file the recorded command wrote, with the digest of its content; the one the sensor saw
    // written, which nothing hashed, is no subject and has no digest
    assert.deepEqual(
      statement.subject.slice(1).map(({ name, digest }) => ({ name, digest })),
      [{ name: join(work, 'made.txt'), digest: { sha256: hex('new\n') } }],
    );
    const unhashed = statement.predicate.monitorLog.fileAccess.find(
      ({ name }) => name === '/tmp/unhashed.txt',
    );
    assert.deepEqual(unhashed && { uri: unhashed.uri, digest: unhashed.digest }, {
      uri: 'file:///tmp/unhashed.txt',
      digest: undefined,
    });
    assert.equal(statement.predicate.provdOmitted['writtenWithoutDigest'], 1);
    // the same capture loss GET /v1/observe/summary reports for the run
    const summary = (await request(shared.daemon.url, `/v1/observe/summary?run=${run}`, { headers: auth }))
      .body;
    const coverage = summary['coverage'] as { run_gaps: number; host_gaps_in_span: number };
    assert.equal(coverage.run_gaps + coverage.host_gaps_in_span, 1);
    assert.deepEqual(statement.predicate.provdCoverage, {
      runGaps: coverage.run_gaps,
      hostGapsInSpan: coverage.host_gaps_in_span,
    });
    const curl = statement.predicate.monitorLog.process.find(
      (entry) => entry['processBinary'] === '/usr/bin/curl',
    );
    assert.deepEqual(curl?.['arguments'], ['curl', '-s', 'https://example.com/']);
    assert.equal(curl?.['pid'], 50);
    assert.deepEqual(
      statement.predicate.monitorLog.network.map(({ ip, hostname, port, events }) => ({
        ip,
        hostname,
        port,
        events,
      })),
      [
        { ip: '93.184.216.34', hostname: undefined, port: 443, events: 2 },
        // a DNS question names the host, not the resolver it went to
        { ip: undefined, hostname: 'example.com', port: undefined, events: 1 },
      ],
    );
    assert.equal(statement.predicate.monitoredProcess['event'], run);
    // from the first event to the end of the recorded command, which ran after it
    assert.equal(statement.predicate.metadata['buildStartedOn'], '2026-01-01T00:00:01.000000000Z');
    const recordedEnd = Date.parse(String(recordedAt));
    assert.ok(Date.parse(statement.predicate.metadata['buildFinishedOn']!) >= recordedEnd - 60_000);
  });

  it("verifies with @sigstore/verify and with securesystemslib under the daemon's key", async function () {
    const body = await attest();
    const bundle = body['bundle'] as Bundle;
    sigstoreVerify(bundle, bundle.verificationMaterial.publicKey.hint, readFileSync(keyFile, 'utf8'));
    // provd attest writes the same bundle the endpoint answers (the same stored run: the same bytes)
    const file = join(work, 'run.sigstore.json');
    const cli = await runCli(['attest', run], {
      env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
    });
    assert.equal(cli.code, 0, cli.stderr);
    writeFileSync(file, cli.stdout);
    assert.deepEqual(JSON.parse(cli.stdout), bundle);
    assert.match(cli.stderr, new RegExp(`attested run ${run}: 2 subjects`));
    // provd's own offline check
    const own = await runCli(['verify', '--attestation', file, '--key', keyFile]);
    assert.equal(own.code, 0, own.stderr);
    assert.match(
      own.stdout,
      new RegExp(
        `^ok: .*runtime-trace/v0.2 signed by ${String(body['key_id'])}\\n  subject run:${run} sha256:`,
      ),
    );
    if (!hasSecuresystemslib()) {
      process.stderr.write(
        `      skipped the Python check: ${python} cannot import securesystemslib (apt-get install python3-securesystemslib)\n`,
      );
      return;
    }
    const checked = spawnSync(python, [pythonCheck, file, keyFile], { encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stderr);
    assert.match(checked.stdout, /^verified: https:\/\/in-toto.io\/attestation\/runtime-trace\/v0.2/);
  });

  it('fails both verifiers when one byte of the statement changes, or under another key', async function () {
    const bundle = (await attest())['bundle'] as Bundle;
    const payload = Buffer.from(bundle.dsseEnvelope.payload, 'base64');
    // one digit of the written file's digest: a statement claiming other content
    const at = payload.indexOf(hex('new\n'));
    assert.ok(at > 0);
    payload[at] = payload[at] === 0x30 ? 0x31 : 0x30;
    const changed = {
      ...bundle,
      dsseEnvelope: { ...bundle.dsseEnvelope, payload: payload.toString('base64') },
    };
    const hint = bundle.verificationMaterial.publicKey.hint;
    const pem = readFileSync(keyFile, 'utf8');
    assert.throws(() => sigstoreVerify(changed, hint, pem), /signature verification failed/);
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.throws(() => sigstoreVerify(bundle, hint, other), /signature verification failed/);
    const changedFile = join(work, 'changed.sigstore.json');
    writeFileSync(changedFile, JSON.stringify(changed));
    const otherFile = join(work, 'other.pub');
    writeFileSync(otherFile, other);
    const originalFile = join(work, 'original.sigstore.json');
    writeFileSync(originalFile, JSON.stringify(bundle));
    const own = await runCli(['verify', '--attestation', changedFile, '--key', keyFile]);
    assert.deepEqual([own.code, own.stdout], [1, ''], own.stderr);
    assert.match(own.stderr, /not verified: the signature does not verify under --key/);
    const ownOther = await runCli(['verify', '--attestation', originalFile, '--key', otherFile]);
    assert.equal(ownOther.code, 1);
    assert.match(ownOther.stderr, /not verified: signed by sha256:\w+, not by --key/);
    if (!hasSecuresystemslib()) {
      process.stderr.write(`      skipped the Python check: ${python} cannot import securesystemslib\n`);
      return;
    }
    const checked = spawnSync(python, [pythonCheck, changedFile, keyFile], { encoding: 'utf8' });
    assert.equal(checked.status, 1, checked.stdout + checked.stderr);
    assert.match(checked.stderr, /signature does not verify/);
    assert.equal(spawnSync(python, [pythonCheck, originalFile, keyFile]).status, 0, 'the original verifies');
    assert.equal(spawnSync(python, [pythonCheck, originalFile, otherFile]).status, 1, 'under another key');
  });

  it('lists at most 1000 execs of a run and counts the ones it left out', async function () {
    const lines = Array.from({ length: 1003 }, (_, i) =>
      nativeLine({ cgroup_id: '888', pid: 1000 + i, tgid: 1000 + i, argv: ['true', String(i)] }),
    );
    const bundle = await attestLines('run-attest-big', '888', lines);
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      predicate: { monitorLog: { process: { pid: number }[] }; provdOmitted: Record<string, number> };
    };
    const pids = statement.predicate.monitorLog.process.map(({ pid }) => pid);
    assert.equal(pids.length, 1000);
    assert.deepEqual([pids[0], pids[999]], [1000, 1999], 'the first ones stored');
    assert.equal(statement.predicate.provdOmitted['process'], 3);
  });

  it("states a hostile producer's long and odd values bounded, marked or counted, and still verifies", async function () {
    const long = 'a'.repeat(10_000);
    const lines = [
      nativeLine({
        cgroup_id: '999',
        path: '/bin/\u2028sh',
        argv: ['sh', '-c', `echo ${long}`, 'never shown'],
      }),
      nativeLine({ cgroup_id: '999', event_type: 'file_open', path: `/tmp/${long}`, flags: 'O_RDONLY' }),
      // a path no one made absolute: neither a file URI nor a digest can name it
      nativeLine({ cgroup_id: '999', event_type: 'file_open', path: 'relative/name', flags: 'O_RDONLY' }),
      nativeLine({
        cgroup_id: '999',
        event_type: 'file_open',
        path: '/tmp/with space/%41"quote"',
        flags: 'O_RDONLY',
      }),
      nativeLine({
        cgroup_id: '999',
        event_type: 'dns_query',
        query: `${long}.example`,
        dst_ip: '127.0.0.53',
        dst_port: 53,
      }),
    ];
    const bundle = await attestLines('run-attest-odd', '999', lines);
    sigstoreVerify(bundle, bundle.verificationMaterial.publicKey.hint, readFileSync(keyFile, 'utf8'));
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      predicate: {
        monitorLog: { process: Record<string, unknown>[]; network: unknown[]; fileAccess: Descriptor[] };
        provdOmitted: Record<string, number>;
      };
    };
    const [exec] = statement.predicate.monitorLog.process;
    assert.equal(exec?.['processBinary'], '/bin/\u2028sh');
    assert.equal(exec?.['truncated'], true);
    const args = exec?.['arguments'] as string[];
    assert.deepEqual(args.slice(0, 2), ['sh', '-c']);
    assert.equal(args.join('').length, 4096, 'the first 4096 characters of the arguments');
    // a path or a name too long to state whole, or a relative path, is left out and counted, never cut into another one
    assert.deepEqual(
      statement.predicate.monitorLog.fileAccess.map(({ name, uri }) => ({ name, uri })),
      [{ name: '/tmp/with space/%41"quote"', uri: 'file:///tmp/with%20space/%2541%22quote%22' }],
    );
    assert.equal(statement.predicate.provdOmitted['fileAccess'], 2);
    assert.deepEqual(statement.predicate.monitorLog.network, []);
    assert.equal(statement.predicate.provdOmitted['network'], 1);
  });

  it('refuses an unknown run, a missing run and a request without the token', async function () {
    const { url } = shared.daemon;
    await assertErrors(
      url,
      [
        ['/v1/graph/attestation?run=nope', 404, 'run_not_found'],
        ['/v1/graph/attestation', 400, 'invalid_argument'],
      ],
      auth,
    );
    await assertErrors(url, [[`/v1/graph/attestation?run=${run}`, 401, 'unauthorized']]);
    const cli = await runCli(['attest', 'nope'], { env: { PROVD_URL: url, PROVD_AUTH_TOKEN: token } });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /run_not_found/);
    assert.equal(cli.stdout, '');
  });

  describe('with provd daemon --attestation-key ecdsa-p256', function () {
    const temp = useTempDir('provd-attest-p256-');

    it('signs attestations with a P-256 key of their own, listed by GET /v1/graph/keys, that every verifier takes', async function () {
      const dataDir = join(temp.path, 'data');
      let daemon = await startDaemon({
        dataDir,
        authToken: token,
        args: ['--attestation-key', 'ecdsa-p256'],
      });
      let keys: Record<string, unknown>[] = [];
      let bundle: Bundle;
      try {
        const post = (path: string, body: string) =>
          request(daemon.url, path, { method: 'POST', headers: auth, body });
        const bound = await post(
          '/v1/telemetry/bind',
          JSON.stringify({ run_id: run, tool_call_id: 'tc-sensor', cgroup_id: '777' }),
        );
        assert.equal(bound.status, 200, JSON.stringify(bound.body));
        const line = nativeLine({ path: '/usr/bin/curl', argv: ['curl', 'https://example.com/'] });
        assert.equal((await post('/v1/telemetry/ingest?format=native', line)).status, 200);
        keys = (await request(daemon.url, '/v1/graph/keys', { headers: auth })).body['keys'] as Record<
          string,
          unknown
        >[];
        const answer = await request(daemon.url, `/v1/graph/attestation?run=${run}`, { headers: auth });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        bundle = answer.body['bundle'] as Bundle;
        assert.equal(answer.body['key_id'], keys[1]!['key_id']);
      } finally {
        await daemon.stop();
      }
      // the checkpoint key first, as without the option; then the attestation key
      assert.deepEqual(
        keys.map((key) => [key['algorithm'], key['current'], key['attestations']]),
        [
          ['ed25519', true, false],
          ['ecdsa-p256', true, true],
        ],
      );
      const p256 = keys[1]!;
      const hint = bundle.verificationMaterial.publicKey.hint;
      assert.equal(hint, p256['key_id']);
      assert.equal(bundle.dsseEnvelope.signatures[0]!.keyid, hint);
      const pem = String(p256['public_key_pem']);
      sigstoreVerify(bundle, hint, pem);
      const payload = Buffer.from(bundle.dsseEnvelope.payload, 'base64');
      const at = payload.indexOf(Buffer.from(run));
      assert.ok(at > 0);
      payload[at] = payload[at]! ^ 0x01; // the statement names another run
      const changed = {
        ...bundle,
        dsseEnvelope: { ...bundle.dsseEnvelope, payload: payload.toString('base64') },
      };
      assert.throws(() => sigstoreVerify(changed, hint, pem), /signature verification failed/);
      const files = {
        key: join(temp.path, 'p256.pub'),
        ed25519: join(temp.path, 'ed25519.pub'),
        original: join(temp.path, 'p256.sigstore.json'),
        changed: join(temp.path, 'p256-changed.sigstore.json'),
      };
      writeFileSync(files.key, pem);
      writeFileSync(files.ed25519, String(keys[0]!['public_key_pem']));
      writeFileSync(files.original, JSON.stringify(bundle));
      writeFileSync(files.changed, JSON.stringify(changed));
      const own = await runCli(['verify', '--attestation', files.original, '--key', files.key]);
      assert.equal(own.code, 0, own.stderr);
      assert.match(own.stdout, new RegExp(`^ok: .*runtime-trace/v0.2 signed by ${hint}\\n`));
      const ownChanged = await runCli(['verify', '--attestation', files.changed, '--key', files.key]);
      assert.equal(ownChanged.code, 1);
      assert.match(ownChanged.stderr, /the signature does not verify under --key/);
      const ownEd25519 = await runCli(['verify', '--attestation', files.original, '--key', files.ed25519]);
      assert.equal(ownEd25519.code, 1);
      assert.match(ownEd25519.stderr, /not by --key/);
      // the private key stays in the data dir, the daemon's alone, and the same across a restart
      assert.equal(statSync(join(dataDir, 'attestation-key-p256.pem')).mode & 0o777, 0o600);
      daemon = await startDaemon({ dataDir, authToken: token, args: ['--attestation-key', 'ecdsa-p256'] });
      try {
        const again = await request(daemon.url, `/v1/graph/attestation?run=${run}`, { headers: auth });
        assert.equal(again.body['key_id'], hint);
      } finally {
        await daemon.stop();
      }
      if (!hasSecuresystemslib()) {
        process.stderr.write(`      skipped the Python check: ${python} cannot import securesystemslib\n`);
        return;
      }
      const checked = spawnSync(python, [pythonCheck, files.original, files.key], { encoding: 'utf8' });
      assert.equal(checked.status, 0, checked.stderr);
      assert.match(checked.stdout, /^verified: https:\/\/in-toto.io\/attestation\/runtime-trace\/v0.2/);
      const refused = spawnSync(python, [pythonCheck, files.changed, files.key], { encoding: 'utf8' });
      assert.equal(refused.status, 1, refused.stdout + refused.stderr);
    });

    it('refuses another value at start, saying which it takes', async function () {
      const started = await runDaemonCli(join(temp.path, 'refused'), ['--attestation-key', 'rsa']);
      assert.equal(started.code, 2, started.stderr);
      assert.match(
        started.stderr,
        /PROVD_ERR_CONFIG_INVALID: --attestation-key .* must be ed25519 or ecdsa-p256, not "rsa"/,
      );
    });
  });
});
