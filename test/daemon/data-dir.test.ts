import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDaemonCli } from '../support/cli.js';
import { makeDataDir, removeDir, startDaemon } from '../support/daemon.js';
import { bind } from '../support/telemetry.js';
import { request } from '../support/http.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('the data dir', function () {
  let parent: string;
  beforeEach(function () {
    parent = makeDataDir();
  });
  afterEach(function () {
    removeDir(parent);
  });

  it('closes an existing data dir others may enter, empty or holding its store, and keeps the store', async function () {
    const dir = join(parent, 'open');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    let daemon = await startDaemon({ dataDir: dir });
    assert.equal(modeOf(dir), 0o700, 'an empty dir of mode 0755 is closed');
    assert.equal(modeOf(join(dir, 'signing-key.pem')) & 0o077, 0, 'the key is readable by its owner only');
    await bind(daemon.url, { run_id: 'run-kept', tool_call_id: 'tc', cgroup_id: '777' });
    await daemon.stop();

    const files = readdirSync(dir).filter((name) => statSync(join(dir, name)).isFile());
    assert.ok(files.includes('provd.duckdb'), files.join());
    // hooks.json alone is for every user's hook client to read: it holds only hooks.on_daemon_down
    assert.equal(modeOf(join(dir, 'hooks.json')), 0o644);
    for (const name of files.filter((file) => file !== 'hooks.json'))
      assert.equal(modeOf(join(dir, name)), 0o600, `${name} is the daemon's alone`);
    assert.equal(modeOf(join(dir, 'spool')), 0o700);

    chmodSync(dir, 0o755); // as an older provd, or a user, left it
    chmodSync(join(dir, 'provd.duckdb'), 0o644);
    daemon = await startDaemon({ dataDir: dir });
    try {
      assert.equal(modeOf(dir), 0o700, 'a dir holding the store is closed');
      assert.equal(modeOf(join(dir, 'provd.duckdb')), 0o600, 'and so is the store');
      const runs = await request(daemon.url, '/v1/runs');
      assert.deepEqual(
        (runs.body['runs'] as { run_id: string }[]).map((run) => run.run_id),
        ['run-kept'],
      );
    } finally {
      await daemon.stop();
    }
  });

  it("refuses to start in a dir others may enter that holds what is not provd's, and leaves it as it was", async function () {
    const dir = join(parent, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const started = await runDaemonCli(dir);
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, /PROVD_ERR_CONFIG_INVALID: the data dir .* \(mode 0755\) .*chmod 700/);
    assert.equal(modeOf(dir), 0o755);
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine');
  });
});
