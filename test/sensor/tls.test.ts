// Every sensor here has the default --capture agents: it stores and scans for TLS targets only the
// commands it records, and what other test files run meanwhile (a Go toolchain building among them)
// is filtered out in the kernel, so the runner runs it beside them.
// run-suites: capture agents only (the Go clients outside the supported range, seen only by
// --capture host, are tls-go-unsupported.test)
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { runCli } from '../support/cli.js';
import { fetchedGo, hasFetchedGo, supportedGoVersions } from '../support/go-toolchain.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { eventuallyDefined } from '../support/eventually.js';
import { auth, goClientName, targets, useTlsSuite, token } from '../support/tls-capture.js';

interface StoredEvent {
  type: string;
  comm: string;
  tool_call_id: string | null;
  correlation: { evidence_level: string };
  attrs: { http?: Record<string, unknown>; [name: string]: unknown };
}

describe('TLS plaintext capture by the eBPF sensor', function () {
  const fixture = useDaemonFixture();
  const suite = useTlsSuite(() =>
    supportedGoVersions.map((version) => ({
      name: goClientName(version),
      go: hasFetchedGo(version) ? fetchedGo(version) : undefined,
    })),
  );

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
    const fetchChunked = `process.env.NODE_TLS_REJECT_UNAUTHORIZED='0'; process.emitWarning=()=>{}; fetch('${suite.url}/chunked').then((r) => r.text())`;
    const recorded = await request(daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        run_id: 'run-tls',
        tool_call_id: 'tc-tls',
        command: 'sh',
        args: [
          '-c',
          `curl -sk -o /dev/null -H 'content-type: application/json' -H 'authorization: Bearer sk-test' -d '{"model":"m"}' ${suite.url}/v1/messages && ${process.execPath} -e "${fetchChunked}"`,
        ],
        cwd: suite.dir,
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
      [suite.url.slice('https://'.length), '{"model":"m"}'],
    );
    assert.doesNotMatch(JSON.stringify(tls), /sk-test/, 'the authorization header is never kept');
    const nodeRead = tls.find((event) => event.type === 'tls_read' && event.comm === 'node')!;
    assert.deepEqual(
      [nodeRead.attrs.http?.['body'], nodeRead.attrs.http?.['ended_by']],
      ['first,second,third', 'chunked'],
    );
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
      // the first awaits the four builds, two at a time, which in the parallel phase may find Go's
      // cache cold and share the cores with other files (a hang guard, not a speed check)
      this.timeout(480_000);
      const name = goClientName(goVersion);
      const binary = join(suite.dir, name);
      const version = await suite.built(name);
      // once every build is done: with --capture agents the compilers are never scanned, but they
      // would take the cores from the capture the test waits on
      await suite.everyBuildDone();
      const daemon = await fixture.start({ sensor: true, authToken: token });
      const start = join(suite.dir, `${name}-start`);
      // the client waits for `start`, made once the sensor has attached to it: a uprobe is per file
      const recorded = request(daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: `run-${name}`,
          tool_call_id: `tc-${name}`,
          command: binary,
          args: [suite.url, start],
          cwd: suite.dir,
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
