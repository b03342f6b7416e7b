// Runs alone (test/support/run-suites.mjs): its Go clients run outside any recorded command, so only
// a sensor with --capture host sees their exec and scans them, and it would see every other test
// file's processes too (a Go toolchain building for another test is found as a Go binary). The TLS
// tests that capture only what they record are tls.test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fetchedGo, hasFetchedGo, newerGoVersion, systemGo } from '../support/go-toolchain.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { eventuallyDefined } from '../support/eventually.js';
import { auth, targets, token, useTlsSuite } from '../support/tls-capture.js';

describe('TLS plaintext capture by the eBPF sensor, of Go binaries outside the supported range', function () {
  const fixture = useDaemonFixture();
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

  const suite = useTlsSuite(() => outsideRange.map(({ name, go }) => ({ name, go: go() })));

  for (const { which, name, go: findGo, install } of outsideRange)
    it(`reports a Go binary ${which} than the supported range as degraded TLS coverage, with a coverage gap`, async function () {
      const go = findGo();
      if (go === undefined) {
        process.stderr.write(`      skipped: no such Go toolchain here (as root, ${install})\n`);
        this.skip();
      }
      this.timeout(240_000);
      const binary = join(suite.dir, name);
      const version = await suite.built(name);
      // a Go toolchain is itself Go binaries: none may still be compiling while a sensor watches, or
      // it finds them too (the 1.27 compiler is a binary it cannot capture)
      await suite.everyBuildDone();
      const minor = Number(/^go1\.(\d+)/.exec(version)?.[1]);
      if (minor >= 23 && minor <= 26) {
        process.stderr.write(`      skipped: the system's ${version} is inside the supported range\n`);
        this.skip();
      }
      // the client runs outside any recorded command: only --capture host sees its exec and scans it
      const daemon = await fixture.start({ sensor: true, authToken: token, args: ['--capture', 'host'] });
      // waits for a start file that never comes: it only has to run until discovery finds it
      const client = spawn(binary, [suite.url, join(suite.dir, 'never')], { stdio: 'ignore' });
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
});
