import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { runCli } from '../support/cli.js';
import {
  buildGoAll,
  hasFetchedGo,
  fetchedGo,
  newerGoVersion,
  supportedGoVersions,
  systemGo,
} from '../support/go-toolchain.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { useTempDir } from '../support/temp-dir.js';
import { eventuallyDefined } from '../support/eventually.js';

const token = 'tls-test-token';
const auth = { authorization: `Bearer ${token}` };
const fixtures = fileURLToPath(new URL('../../../test/fixtures/sensor/', import.meta.url));

interface Target {
  path: string;
  kind: string;
  status: string;
  reason: string | null;
  go_version: string | null;
}

interface StoredEvent {
  type: string;
  comm: string;
  tool_call_id: string | null;
  correlation: { evidence_level: string };
  attrs: { http?: Record<string, unknown>; [name: string]: unknown };
}

/** Whether `command` runs here. */
function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The TLS targets health reports; with the token, since without it health names no paths. */
async function targets(daemon: RunningDaemon): Promise<Target[]> {
  const capture = (await request(daemon.url, '/v1/health', { headers: auth })).body['native_capture'] as {
    tls?: { targets: Target[] };
  };
  return capture.tls?.targets ?? [];
}

/** The file a Go client built by `version` is written to. */
const goClientName = (version: string): string => `go${version.replace('.', '')}-client`;

describe('TLS plaintext capture by the eBPF sensor', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-tls-', { per: 'suite' });
  let server: ChildProcess | undefined;
  let url = '';
  let builds = new Map<string, Promise<string>>();
  // a Go toolchain is itself Go binaries: none may still be compiling while a sensor watches, or it
  // finds them too (the 1.27 compiler is a binary it cannot capture)
  const everyBuildDone = async (): Promise<void> => void (await Promise.allSettled(builds.values()));

  before(async function () {
    const why =
      sensorUnavailable() ??
      ['curl', 'openssl', 'python3']
        .filter((command) => !has(command))
        .map((command) => `${command} is not installed`)[0];
    if (why !== undefined) {
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    }
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(work.path, 'key.pem'),
        '-out',
        join(work.path, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    // the server runs outside any recorded command: its side of each exchange is captured unattributed
    server = spawn(
      'python3',
      [join(fixtures, 'https_server.py'), join(work.path, 'cert.pem'), join(work.path, 'key.pem')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const port = await new Promise<string>((resolve) =>
      server!.stdout!.once('data', (line) => resolve(String(line).trim())),
    );
    url = `https://127.0.0.1:${port}`;
    // the Go clients build while the tests before theirs run, as many at once as there are cores
    builds = buildGoAll(
      [
        ...outsideRange.map(({ name, go }) => ({ name, go: go() })),
        ...supportedGoVersions.map((version) => ({
          name: goClientName(version),
          go: hasFetchedGo(version) ? fetchedGo(version) : undefined,
        })),
      ],
      join(fixtures, 'go-tls-client', 'main.go'),
      work.path,
    );
  });

  after(function () {
    server?.kill();
  });

  it('probes the system libssl and node (OpenSSL linked statically) as TLS targets, and lists them', async function () {
    const daemon = await fixture.start({ sensor: true });
    const found = await eventuallyDefined('libssl and node as attached targets', async () => {
      const all = await targets(daemon);
      const libssl = all.find((target) => /\/libssl\.so\.3$/.test(target.path));
      const node = all.find((target) => target.path === process.execPath);
      return libssl !== undefined && node !== undefined ? { libssl, node } : undefined;
    });
    for (const target of [found.libssl, found.node])
      assert.deepEqual(target, {
        ...target,
        kind: 'openssl',
        status: 'attached',
        reason: null,
        go_version: null,
      });
    const status = await runCli(['sensor', 'status', '--url', daemon.url]);
    assert.match(status.stdout, new RegExp(`^${process.execPath} +openssl +attached *$`, 'm'));
  });

  it('captures the HTTPS requests and responses of curl (libssl) and node in a recorded command, kernel-correlated', async function () {
    const cgroups = probeRecordCgroupRoot();
    if (cgroups.status !== 'ok') {
      process.stderr.write(`      skipped: ${cgroups.message}\n`);
      this.skip();
    }
    const daemon = await fixture.start({ sensor: true, authToken: token });
    await eventuallyDefined('node attached', async () =>
      (await targets(daemon)).some(
        (target) => target.path === process.execPath && target.status === 'attached',
      )
        ? true
        : undefined,
    );
    const fetchChunked = `process.env.NODE_TLS_REJECT_UNAUTHORIZED='0'; process.emitWarning=()=>{}; fetch('${url}/chunked').then((r) => r.text())`;
    const recorded = await request(daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        run_id: 'run-tls',
        tool_call_id: 'tc-tls',
        command: 'sh',
        args: [
          '-c',
          `curl -sk -o /dev/null -H 'content-type: application/json' -H 'authorization: Bearer sk-test' -d '{"model":"m"}' ${url}/v1/messages && ${process.execPath} -e "${fetchChunked}"`,
        ],
        cwd: work.path,
      }),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    assert.equal(recorded.body['exit_code'], 0, JSON.stringify(recorded.body['stderr']));
    const tls = await eventuallyDefined('four TLS events of the run', async () => {
      const { body } = await request(daemon.url, '/v1/telemetry/events?run=run-tls&limit=1000', {
        headers: auth,
      });
      const events = (body['events'] as StoredEvent[]).filter((event) => event.type.startsWith('tls_'));
      return events.length >= 4 ? events : undefined;
    });
    const summary = tls
      .map((event) => [
        event.type,
        event.comm,
        event.attrs.http?.['method'] ?? event.attrs.http?.['status'],
        event.attrs.http?.['path'] ?? null,
      ])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    assert.deepEqual(summary, [
      ['tls_read', 'curl', 200, null],
      ['tls_read', 'node', 200, null],
      ['tls_write', 'curl', 'POST', '/v1/messages'],
      ['tls_write', 'node', 'GET', '/chunked'],
    ]);
    for (const event of tls) {
      assert.equal(event.correlation.evidence_level, 'kernel_correlated');
      assert.equal(event.tool_call_id, 'tc-tls');
    }
    const curlRead = tls.find((event) => event.type === 'tls_read' && event.comm === 'curl')!;
    assert.equal(
      curlRead.attrs.http?.['body'],
      '{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":34}}',
    );
    const curlWrite = tls.find((event) => event.type === 'tls_write' && event.comm === 'curl')!;
    assert.deepEqual(
      [curlWrite.attrs.http?.['host'], curlWrite.attrs.http?.['body']],
      [url.slice('https://'.length), '{"model":"m"}'],
    );
    assert.doesNotMatch(JSON.stringify(tls), /sk-test/, 'the authorization header is never kept');
    const nodeRead = tls.find((event) => event.type === 'tls_read' && event.comm === 'node')!;
    assert.deepEqual(
      [nodeRead.attrs.http?.['body'], nodeRead.attrs.http?.['ended_by']],
      ['first,second,third', 'chunked'],
    );
  });

  const outsideRange = [
    {
      which: 'older (the system Go)',
      name: 'go-old-client',
      go: systemGo,
      install: '.ci/setup --for-tests installs golang-go',
    },
    {
      which: `newer (Go ${newerGoVersion})`,
      name: 'go-new-client',
      go: () => (hasFetchedGo(newerGoVersion) ? fetchedGo(newerGoVersion) : undefined),
      install: '.ci/fetch-go fetches it',
    },
  ];
  for (const { which, name, go: findGo, install } of outsideRange)
    it(`reports a Go binary ${which} than the supported range as degraded TLS coverage, with a coverage gap`, async function () {
      const go = findGo();
      if (go === undefined) {
        process.stderr.write(`      skipped: no such Go toolchain here (as root, ${install})\n`);
        this.skip();
      }
      this.timeout(240_000);
      const binary = join(work.path, name);
      const version = await builds.get(name)!;
      await everyBuildDone();
      const minor = Number(/^go1\.(\d+)/.exec(version)?.[1]);
      if (minor >= 23 && minor <= 26) {
        process.stderr.write(`      skipped: the system's ${version} is inside the supported range\n`);
        this.skip();
      }
      // the client runs outside any recorded command: only --capture host sees its exec and scans it
      const daemon = await fixture.start({ sensor: true, authToken: token, args: ['--capture', 'host'] });
      // waits for a start file that never comes: it only has to run until discovery finds it
      const client = spawn(binary, [url, join(work.path, 'never')], { stdio: 'ignore' });
      try {
        const target = await eventuallyDefined('the Go client as a target', async () =>
          (await targets(daemon)).find((found) => found.path === binary),
        );
        assert.deepEqual(target, {
          path: binary,
          kind: 'go',
          status: 'degraded',
          reason: `${version} is outside the supported Go range 1.23 to 1.26`,
          go_version: version,
        });
        const gaps = await eventuallyDefined('a sensor_tls_unsupported gap', async () => {
          const { body } = await request(daemon.url, '/v1/telemetry/producer-health', { headers: auth });
          const recorded = (body['coverage_gaps'] as Record<string, { gaps: number }>)[
            'sensor_tls_unsupported'
          ];
          return recorded?.gaps === 1 ? recorded : undefined;
        });
        assert.equal(gaps.gaps, 1);
      } finally {
        client.kill();
      }
    });

  for (const goVersion of supportedGoVersions)
    it(`captures the HTTPS requests and responses of a Go ${goVersion} client (crypto/tls) in a recorded command, kernel-correlated`, async function () {
      if (!hasFetchedGo(goVersion)) {
        process.stderr.write(
          `      skipped: no Go ${goVersion} toolchain at ${fetchedGo(goVersion)} (as root, .ci/fetch-go fetches it; npm test runs it)\n`,
        );
        this.skip();
      }
      const cgroups = probeRecordCgroupRoot();
      if (cgroups.status !== 'ok') {
        process.stderr.write(`      skipped: ${cgroups.message}\n`);
        this.skip();
      }
      this.timeout(240_000);
      const name = goClientName(goVersion);
      const binary = join(work.path, name);
      const version = await builds.get(name)!;
      await everyBuildDone();
      const daemon = await fixture.start({ sensor: true, authToken: token });
      const start = join(work.path, `${name}-start`);
      // the client waits for `start`, made once the sensor has attached to it: a uprobe is per file
      const recorded = request(daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: `run-${name}`,
          tool_call_id: `tc-${name}`,
          command: binary,
          args: [url, start],
          cwd: work.path,
        }),
      });
      const target = await eventuallyDefined(`the Go ${goVersion} client attached`, async () =>
        (await targets(daemon)).find((found) => found.path === binary),
      );
      assert.deepEqual(target, {
        path: binary,
        kind: 'go',
        status: 'attached',
        reason: null,
        go_version: version,
      });
      writeFileSync(start, '');
      const { status, body } = await recorded;
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body['exit_code'], 0, JSON.stringify(body['stderr']));

      const tls = await eventuallyDefined('four TLS events of the run', async () => {
        const { body } = await request(daemon.url, `/v1/telemetry/events?run=run-${name}&limit=1000`, {
          headers: auth,
        });
        const events = (body['events'] as StoredEvent[]).filter((event) => event.type.startsWith('tls_'));
        return events.length >= 4 ? events : undefined;
      });
      const http = (event: StoredEvent): Record<string, unknown> => event.attrs.http ?? {};
      assert.deepEqual(
        tls.map((event) => [
          event.type,
          http(event)['method'] ?? http(event)['status'],
          http(event)['path'] ?? null,
          http(event)['body'],
          http(event)['ended_by'],
        ]),
        [
          ['tls_write', 'POST', '/v1/messages', '{"model":"go"}', 'length'],
          ['tls_read', 200, null, '{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":34}}', 'length'],
          ['tls_write', 'GET', '/chunked', '', 'length'],
          ['tls_read', 200, null, 'first,second,third', 'chunked'],
        ],
      );
      for (const event of tls) {
        assert.equal(event.comm, name);
        assert.equal(event.correlation.evidence_level, 'kernel_correlated');
        assert.equal(event.tool_call_id, `tc-${name}`);
      }
      const health = (await request(daemon.url, '/v1/health')).body['native_capture'] as {
        probes: Record<string, { pending_full: number }>;
      };
      assert.deepEqual(
        [health.probes['tls_write']?.pending_full, health.probes['tls_read']?.pending_full],
        [0, 0],
        'every return of a Go call found the call its entry kept',
      );
    });
});
