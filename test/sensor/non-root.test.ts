// run-suites: capture agents only (its daemon runs as nobody, where the sensor cannot start; its
// capture would be the default, agents, had it started)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, startDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';

describe('the daemon as a user that is not root', function () {
  it('runs without the sensor and says why', async function () {
    const nobody = { uid: 65534, gid: 65534 };
    if (process.getuid?.() !== 0) {
      process.stderr.write(
        '      skipped: only root can start the daemon as another user (this run is not root)\n',
      );
      this.skip();
    }
    const readable = spawnSync(
      process.execPath,
      ['-e', `require('fs').accessSync(${JSON.stringify(cliPath)})`],
      nobody,
    );
    if (readable.status !== 0) {
      process.stderr.write(`      skipped: user nobody cannot read ${cliPath}\n`);
      this.skip();
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'provd-nobody-'));
    chownSync(dataDir, nobody.uid, nobody.gid);
    const daemon = await startDaemon({ dataDir, sensor: true, identity: nobody });
    try {
      const { body } = await request(daemon.url, '/v1/health');
      const capture = body['native_capture'] as Record<string, unknown>;
      assert.deepEqual(
        [capture['status'], capture['message']],
        ['unavailable', 'the sensor needs root; the daemon runs without it'],
      );
      assert.equal(body['ready'], true);
    } finally {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
