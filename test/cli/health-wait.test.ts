// `provd health --wait SECONDS [--pid PID]`: how the quickstart waits for the daemon it started in the
// background. It ends ready, or says why not: the daemon's own error when its process ended (its port
// taken), the last answer when the time is up, a daemon that refuses the token; never hangs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { cliPath, spawnServer, useDaemonFixture, type RunningServer } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { freePort } from '../support/free-port.js';
import { useTempDir } from '../support/temp-dir.js';

describe('provd health --wait', function () {
  // most tests start two daemons, one after the other
  this.timeout(60_000);
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-health-wait-');
  let late: RunningServer | undefined;

  afterEach(async function () {
    await late?.stop();
    late = undefined;
  });

  /** Runs `script` in bash as a user types it, `provd` being the compiled CLI; with `env` added. */
  function shell(
    script: string,
    env: Record<string, string> = {},
  ): { code: number | null; stdout: string; stderr: string } {
    const {
      PROVD_AUTH_TOKEN: _token,
      PROVD_AUTH_TOKEN_FILE: _file,
      PROVD_URL: _url,
      ...inherited
    } = process.env;
    const result = spawnSync('bash', ['-c', `provd() { node ${cliPath} "$@"; }\n${script}`], {
      cwd: work.path,
      env: { ...inherited, ...env },
      encoding: 'utf8',
      timeout: 50_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('waits for a daemon that starts after it, then prints its health', async function () {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const waiting = runCli(['health', '--wait', '40', '--url', url]);
    late = await spawnServer(cliPath, [
      'daemon',
      '--listen',
      `127.0.0.1:${port}`,
      '--data-dir',
      join(work.path, 'data'),
      '--no-sensor',
    ]);
    const { code, stdout, stderr } = await waiting;
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^health: ok \(ready\)\nchecks:\n/);
    assert.match(stderr, new RegExp(`^provd: waiting up to 40 s for the daemon at ${url} to be ready\n$`));
  });

  it("ends as soon as the daemon's process has ended, with the error of its log: its port taken", async function () {
    // an earlier daemon on the port, with a token of its own: ready, but not the one started here
    const earlier = await fixture.start({ authToken: 'the-earlier-token' });
    const { code, stdout, stderr } = shell(
      `provd daemon --listen 127.0.0.1:${earlier.port} --data-dir data --no-sensor > daemon.log 2>&1 &
       provd health --wait 40 --pid $!`,
      { PROVD_AUTH_TOKEN: 'the-new-token', PROVD_URL: earlier.url },
    );
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(
        `provd: the daemon \\(pid \\d+\\) ended before it was ready; the end of its log \\(${work.path}/daemon\\.log\\):\n` +
          `  cannot listen: PROVD_ERR_HTTP_LISTEN: failed to listen on 127\\.0\\.0\\.1:${earlier.port} \\(in use, by another provd too, or not a local address\\)\n$`,
      ),
    );
  });

  it('shows what the process wrote as text, never as terminal control', function () {
    // the process ends only once the wait has looked where it writes (the wait said it is waiting)
    const { code, stderr } = shell(
      `sh -c 'printf "provd: \\033]0;owned\\007\\033[2J cleared\\n" >&2; until [ -e go ]; do sleep 0.1; done; exit 1' 2> out.log &
       provd health --wait 40 --pid $! --url http://127.0.0.1:9 2> wait.log &
       until grep -qs 'waiting up to' wait.log; do sleep 0.1; done
       touch go
       wait $!; code=$?
       cat wait.log >&2; exit $code`,
    );
    assert.equal(code, 2, stderr);
    assert.match(stderr, /\n {2}provd: \\x1b\]0;owned\\x07\\x1b\[2J cleared\n$/);
    assert.ok(!stderr.includes('\x1b'), 'no ESC reaches the terminal');
  });

  it('gives up when the time is up, saying the last answer: nothing listening', async function () {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { code, stdout, stderr } = await runCli(['health', '--wait', '1', '--url', url]);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(`\nprovd: the daemon at ${url} is not ready after 1 s: cannot reach the daemon at ${url}: `),
    );
  });

  it('does not count a ready daemon that refuses the token as ready', async function () {
    const daemon = await fixture.start({ authToken: 'the-daemon-token' });
    const { code, stderr } = await runCli(['health', '--wait', '1', '--url', daemon.url], {
      env: { PROVD_AUTH_TOKEN: 'another-token' },
    });
    assert.equal(code, 2);
    assert.match(
      stderr,
      /is not ready after 1 s: a daemon there is ready but refuses the token: unauthorized: the bearer token is wrong/,
    );
    const right = await runCli(['health', '--wait', '1', '--url', daemon.url], {
      env: { PROVD_AUTH_TOKEN: 'the-daemon-token' },
    });
    assert.equal(right.code, 0, right.stderr);
    assert.equal(right.stderr, '', 'ready at the first ask: nothing said about waiting');
  });

  it('exits 1 with the health when the daemon still answers not ready at the end', async function () {
    await fixture.start().then((daemon) => daemon.stop());
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) => db.run('DROP TABLE coverage_gaps'));
    const daemon = await fixture.start();
    const { code, stdout, stderr } = await runCli(['health', '--wait', '1', '--url', daemon.url]);
    assert.equal(code, 1);
    assert.match(stderr, /is not ready after 1 s: it answers unavailable, not ready\n$/);
    assert.match(
      stdout,
      /^health: unavailable \(not ready\)\nwhy:\n {2}- check schema failed: .*coverage_gaps/,
    );
  });

  it('refuses --pid without --wait, and a --wait that is not a count of seconds', async function () {
    const pidAlone = await runCli(['health', '--pid', '1']);
    assert.equal(pidAlone.code, 2);
    assert.equal(pidAlone.stderr, 'provd: PROVD_ERR_CONFIG_INVALID: --pid goes with --wait SECONDS\n');
    for (const bad of ['0', '1.5', 'soon', '86401']) {
      const { code, stderr } = await runCli(['health', '--wait', bad]);
      assert.equal(code, 2, bad);
      assert.equal(
        stderr,
        `provd: PROVD_ERR_CONFIG_INVALID: --wait must be an integer 1..86400, got "${bad}"\n`,
      );
    }
  });
});
