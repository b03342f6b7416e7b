import assert from 'node:assert/strict';
import { connect } from 'node:net';
import {
  makeDataDir,
  removeDir,
  startDaemon,
  type RunningDaemon,
  assertStopsCleanly,
  awaitLogged,
} from '../support/daemon.js';
import { request } from '../support/http.js';

/** Opens a raw connection, writes `data`, and destroys the socket right away. */
function hangUpAfter(port: number, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(data, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

describe('aborted requests', function () {
  let dataDir: string;
  let daemon: RunningDaemon;

  before(async function () {
    dataDir = makeDataDir();
    // every readiness check blocks the store thread for 1.5 s, so health answers are slow and abortable
    daemon = await startDaemon({ dataDir, env: { PROVD_FAULT_HEALTH_STALL_MS: '1500' } });
  });

  after(async function () {
    await assertStopsCleanly(daemon, 'the daemon still shuts down cleanly');
    removeDir(dataDir);
  });

  it('keeps serving when clients hang up before a slow answer is ready', async function () {
    const aborted = Array.from({ length: 20 }, () =>
      fetch(daemon.url + '/v1/health', { signal: AbortSignal.timeout(100) }).then(
        () => assert.fail('the request should have been aborted'),
        (error: Error) => assert.equal(error.name, 'TimeoutError'),
      ),
    );
    await Promise.all(aborted);
    // the stalled check answers into the void
    await awaitLogged(daemon, 'fault: the readiness check resumes');
    assert.equal(daemon.child.exitCode, null, 'the daemon is still running');
    assert.equal((await request(daemon.url, '/v1/live')).status, 200);
  });

  it('keeps serving when a client hangs up in the middle of a request body', async function () {
    const head = 'POST /v1/telemetry/bind HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
    await hangUpAfter(daemon.port, head + 'Content-Length: 100000\r\n\r\n{"run_id":"r"');
    await hangUpAfter(daemon.port, head + 'Transfer-Encoding: chunked\r\n\r\n5\r\n{"run');
    await hangUpAfter(daemon.port, 'GET /v1/live HTTP/1.1\r\nHo');
    assert.equal((await request(daemon.url, '/v1/live')).status, 200);
    const bind = await request(daemon.url, '/v1/telemetry/bind', { method: 'POST', body: '{"run_id":"r"}' });
    assert.equal(bind.status, 400, 'a later request on a fresh connection is read and answered in full');
    assert.equal(daemon.child.exitCode, null);
  });
});
