import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { startDaemon, useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';

describe('graceful shutdown', function () {
  const fixture = useDaemonFixture();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits 0 on ${signal} during requests and leaves a database that reopens cleanly`, async function () {
      const daemon = await fixture.start();
      const outcomes = { ok: 0, unavailable: 0, refused: 0 };
      let stopped = false;
      const client = async (): Promise<void> => {
        while (!stopped) {
          try {
            const response = await fetch(daemon.url + '/v1/health');
            await response.arrayBuffer();
            if (response.status === 200) outcomes.ok++;
            else if (response.status === 503) outcomes.unavailable++;
            else assert.fail(`unexpected status ${response.status} during shutdown`);
          } catch {
            outcomes.refused++; // connection refused or reset once the daemon has gone
          }
        }
      };
      const clients = Array.from({ length: 8 }, client);
      while (outcomes.ok < 50) await new Promise((resolve) => setTimeout(resolve, 5));

      const code = await daemon.stop(signal);
      stopped = true;
      await Promise.all(clients);
      assert.equal(code, 0);
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
      assert.equal(await again.stop(), 0);
    });
  }

  it('refuses to start a second daemon on a data dir already in use', async function () {
    const first = await fixture.start();
    await assert.rejects(
      startDaemon({ dataDir: fixture.dataDir }),
      /exited with code 1[\s\S]*in use by another process/,
    );
    assert.equal((await request(first.url, '/v1/health')).status, 200);
    assert.equal(await first.stop(), 0);
  });
});
