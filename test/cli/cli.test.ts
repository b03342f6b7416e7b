import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPath, makeDataDir, removeDir, useDaemonFixture } from '../support/daemon.js';
import { packageRoot } from '../../src/shared/package-root.js';

const run = promisify(execFile);

/** Runs the compiled CLI; resolves with exit code and output instead of throwing on non-zero exits. */
async function provd(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, ...args], {
      env: { ...process.env, ...env },
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('provd cli', function () {
  const fixture = useDaemonFixture();

  it('prints the package version for --version', async function () {
    const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const { code, stdout } = await provd(['--version']);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), version);
  });

  it('lists every command for --help', async function () {
    const { code, stdout } = await provd(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /provd daemon/);
    assert.match(stdout, /provd health/);
    assert.match(stdout, /provd ingest/);
    assert.match(stdout, /provd runs/);
  });

  it('prints health JSON and exits 0 when the daemon is ready', async function () {
    const daemon = await fixture.start({ authToken: 'tok' });
    const { code, stdout } = await provd(['health', '--url', daemon.url, '--json']);
    assert.equal(code, 0);
    assert.equal((JSON.parse(stdout) as Record<string, unknown>)['ready'], true);
  });

  it('exits 1 and still prints the body when the daemon is not ready', async function () {
    writeFileSync(join(fixture.dataDir, 'provd.duckdb'), 'garbage');
    const daemon = await fixture.start();
    const { code, stdout } = await provd(['health', '--json'], { PROVD_URL: daemon.url });
    assert.equal(code, 1);
    assert.equal((JSON.parse(stdout) as Record<string, unknown>)['status'], 'unavailable');
  });

  it('exits 2 with a clear message when no daemon answers', async function () {
    const { code, stderr } = await provd(['health', '--url', 'http://127.0.0.1:1']);
    assert.equal(code, 2);
    assert.match(stderr, /PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at http:\/\/127\.0\.0\.1:1/);
  });

  it('exits 2 with the usage on an unknown option or a missing argument', async function () {
    for (const args of [['daemon', '--bogus'], ['ingest'], ['health', 'extra']]) {
      const { code, stderr } = await provd(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, /\$ provd /, args.join(' '));
    }
  });

  it('exits 2 naming the option when the daemon gets a bad flag', async function () {
    const { code, stderr } = await provd(['daemon', '--listen', 'nonsense', '--data-dir', fixture.dataDir]);
    assert.equal(code, 2);
    assert.match(stderr, /PROVD_ERR_CONFIG_INVALID: --listen must be HOST:PORT/);
  });

  it('refuses to listen beyond loopback without a token, and names the fix', async function () {
    for (const listen of ['0.0.0.0:0', '[::]:0', '192.0.2.1:0']) {
      const { code, stderr } = await provd(['daemon', '--listen', listen, '--data-dir', fixture.dataDir]);
      assert.equal(code, 2, listen);
      assert.match(stderr, /PROVD_ERR_CONFIG_INVALID: --listen \S+ is not a loopback address.*--auth-token/);
    }
  });

  it('exits 1 when the listen port is taken', async function () {
    const first = await fixture.start();
    const otherDir = makeDataDir();
    try {
      const { code, stderr } = await provd([
        'daemon',
        '--listen',
        `127.0.0.1:${first.port}`,
        '--data-dir',
        otherDir,
      ]);
      assert.equal(code, 1, stderr);
      assert.match(stderr, /PROVD_ERR_HTTP_LISTEN/);
    } finally {
      removeDir(otherDir);
    }
  });
});
