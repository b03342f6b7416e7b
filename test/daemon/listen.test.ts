import assert from 'node:assert/strict';
import {
  assertStopsCleanly,
  cliPath,
  freePort,
  makeDataDir,
  removeDir,
  spawnServer,
} from '../support/daemon.js';
import { request } from '../support/http.js';

const daemonArgs = (port: number, dataDir: string): string[] => [
  'daemon',
  '--listen',
  `127.0.0.1:${port}`,
  '--data-dir',
  dataDir,
];

describe('listening', function () {
  const dataDirs: string[] = [];
  afterEach(function () {
    for (const dir of dataDirs.splice(0)) removeDir(dir);
  });

  it('refuses to start a second daemon on a port another provd listens on', async function () {
    const port = await freePort();
    const [first, second] = [makeDataDir(), makeDataDir()];
    dataDirs.push(first, second);
    const running = await spawnServer(cliPath, daemonArgs(port, first));
    try {
      await assert.rejects(
        spawnServer(cliPath, daemonArgs(port, second)),
        /exited with code 1 before listening[\s\S]*PROVD_ERR_HTTP_LISTEN/,
      );
      for (let i = 0; i < 10; i++) assert.equal((await request(running.url, '/v1/live')).status, 200);
    } finally {
      await assertStopsCleanly(running);
    }
  });

  it('takes the same explicit port again right after a daemon on it stopped', async function () {
    const port = await freePort();
    const dataDir = makeDataDir();
    dataDirs.push(dataDir);
    for (let round = 0; round < 2; round++) {
      const running = await spawnServer(cliPath, daemonArgs(port, dataDir));
      assert.equal((await request(running.url, '/v1/live')).status, 200);
      await assertStopsCleanly(running);
    }
  });
});
