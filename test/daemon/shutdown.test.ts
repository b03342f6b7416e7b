import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { startDaemon, useDaemonFixture, assertStopsCleanly, awaitLogged } from '../support/daemon.js';
import { request } from '../support/http.js';
import { assertValidResponse } from '../support/openapi-validator.js';
import { eventually } from '../support/eventually.js';

describe('graceful shutdown', function () {
  const fixture = useDaemonFixture();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits 0 on ${signal} during requests and leaves a database that reopens cleanly`, async function () {
      const daemon = await fixture.start();
      const outcomes = { ok: 0, unavailable: 0, refused: 0 };
      let stopped = false;
      const client = async (): Promise<void> => {
        while (!stopped) {
          let status: number;
          try {
            ({ status } = await request(daemon.url, '/v1/health')); // checks the body against OpenAPI
          } catch (error) {
            if (error instanceof assert.AssertionError) throw error;
            outcomes.refused++; // connection refused or reset once the daemon has gone
            continue;
          }
          if (status === 200) outcomes.ok++;
          else if (status === 503) outcomes.unavailable++;
          else assert.fail(`unexpected status ${status} during shutdown`);
        }
      };
      const clients = Array.from({ length: 8 }, client);
      await eventually(
        '50 health answers',
        () => outcomes.ok,
        (ok) => ok >= 50,
        { everyMs: 5 },
      );

      const code = await daemon.stop(signal);
      stopped = true;
      await Promise.all(clients);
      assert.equal(code, 0, `${daemon.child.signalCode}: ${JSON.stringify(daemon.logs.slice(-10))}`);
      assert.ok(
        daemon.logs.some((entry) => entry['msg'] === 'stopped'),
        'the daemon logs a clean stop',
      );

      const wal = join(fixture.dataDir, 'provd.duckdb.wal');
      assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL was checkpointed into the database');
      const rows = await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
        queryRows(db, 'SELECT count(*) AS n FROM store_format'),
      );
      assert.ok(Number(rows[0]?.['n']) >= 1);

      const again = await fixture.start();
      const { status, body } = await request(again.url, '/v1/health');
      assert.equal(status, 200);
      assert.equal(body['status'], 'ok');
      await assertStopsCleanly(again);
    });
  }

  it('answers health with a shutting-down DaemonHealth and refuses other paths while draining', async function () {
    // a stalled readiness check keeps one request in flight, so the drain lasts long enough to look at
    const daemon = await fixture.start({ env: { PROVD_FAULT_HEALTH_STALL_MS: '1500' } });
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      await Promise.all([getJson(agent, daemon.url + '/v1/live'), getJson(agent, daemon.url + '/v1/live')]);
      const inFlight = getJson(agent, daemon.url + '/v1/health'); // takes one kept-alive socket
      await awaitLogged(daemon, 'fault: the readiness check stalls');
      const exited = daemon.stop('SIGTERM');
      await awaitLogged(daemon, 'shutting down');

      const health = await getJson(agent, daemon.url + '/v1/health'); // the other kept-alive socket
      assert.equal(health.status, 503);
      assertValidResponse({ method: 'GET', path: '/v1/health', ...health });
      assert.equal(health.body['ready'], false);
      const checks = health.body['checks'] as Record<string, Record<string, unknown>>;
      assert.equal(checks['database']?.['message'], 'the daemon is shutting down');

      const other = await getJson(agent, daemon.url + '/v1/openapi.json');
      assert.equal(other.status, 503);
      assert.equal((other.body['error'] as Record<string, unknown>)['code'], 'unavailable');

      assert.equal((await inFlight).status, 200, 'the request in flight is drained, not dropped');
      assert.equal(await exited, 0);
    } finally {
      agent.destroy();
    }
  });

  it('exits 0 when SIGTERM arrives while a store query is still running', async function () {
    // the store thread is stuck for 1.5 s in the readiness check when the signal comes
    const daemon = await fixture.start({ env: { PROVD_FAULT_HEALTH_STALL_MS: '1500' } });
    const pending = fetch(daemon.url + '/v1/health').then(
      (response) => response.status,
      () => 'closed',
    );
    await awaitLogged(daemon, 'fault: the readiness check stalls');
    assert.equal(await daemon.stop('SIGTERM'), 0);
    assert.ok([200, 503, 'closed'].includes(await pending));
    assert.ok(daemon.logs.some((entry) => entry['msg'] === 'stopped'));
  });

  it('refuses to start a second daemon on a data dir already in use', async function () {
    const first = await fixture.start();
    await assert.rejects(
      startDaemon({ dataDir: fixture.dataDir }),
      /exited with code 1[\s\S]*in use by another process/,
    );
    assert.equal((await request(first.url, '/v1/health')).status, 200);
    await assertStopsCleanly(first);
  });
});

/** GET over a given agent (so kept-alive sockets are reused), with the JSON body parsed. */
function getJson(agent: Agent, url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
      );
    }).on('error', reject);
  });
}
