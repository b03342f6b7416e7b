// The README's quickstart, run exactly as written: start the daemon with a token (npm start, flags
// after --), link the CLI, record a real command, verify the run, show its timeline. As root the
// daemon starts its eBPF sensor (sensor: true), so the runner gives this file the host to itself.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

/** The commands between the quickstart markers of the README, without the fence. */
function quickstartCommands(readme: string): string[] {
  const block = /<!-- quickstart[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/quickstart -->/.exec(readme);
  assert.ok(block, 'the README marks its quickstart');
  return block[1]!.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether the process group still has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the README quickstart', function () {
  this.timeout(300_000);
  const commands = quickstartCommands(readFileSync(join(packageRoot, 'README.md'), 'utf8'));
  let dir = '';

  before(function () {
    // npm start builds when dist/ is stale, and would swap dist/ under the tests running beside it
    const stale = spawnSync('bash', ['.ci/build-ts', '--stale'], { cwd: packageRoot });
    if (stale.status === 0) {
      console.log('    skipped: dist/ was not built by `npm run build` (run it, then this test)');
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'provd-quickstart-'));
  });

  after(function () {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('is at most ten commands', function () {
    assert.ok(commands.length <= 10, commands.join('\n'));
    assert.ok(
      commands.some((line) => line.startsWith('npm start --')),
      'it shows flags after --',
    );
  });

  it('starts a daemon with a token, records a command, verifies the run and shows its timeline', async function () {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // where the test puts the daemon, its data and the linked CLI: not the commands, the place
      PROVD_HOME: join(dir, 'home'),
      PROVD_LISTEN: `127.0.0.1:${port}`,
      PROVD_URL: `http://127.0.0.1:${port}`,
      npm_config_prefix: join(dir, 'prefix'),
      PATH: `${join(dir, 'prefix', 'bin')}:${process.env['PATH'] ?? ''}`,
    };
    delete env['PROVD_AUTH_TOKEN'];
    delete env['PROVD_AUTH_TOKEN_FILE'];
    const script = ['set -e', ...commands].join('\n');
    const shell = spawn('bash', ['-c', script], { cwd: packageRoot, env, detached: true });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => process.kill(-shell.pid!, 'SIGKILL'), 240_000);
    const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));
    clearTimeout(timer);
    // the daemon npm start left running: stopped as the README says, and waited for
    process.kill(-shell.pid!, 'SIGTERM');
    for (let waited = 0; groupAlive(shell.pid!) && waited < 60_000; waited += 250)
      await new Promise((resolve) => setTimeout(resolve, 250));

    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /^hello$/m, 'the command printed');
    assert.match(stderr + stdout, /recorded tool call tc_\w+ of run hello: completed, exit 0, 1 file effect/);
    assert.match(stdout, /^verify hello: ok \(0 issues: 0 errors, 0 warnings\)$/m);
    assert.match(stdout, /^TIME \(UTC\) +KIND +TOOL CALL +EVIDENCE +SUMMARY$/m);
    assert.match(stdout, /^.* file_effect +tc_\w+ +self_observed +created greeting\.txt \(6 bytes\)$/m);
    assert.match(
      stdout,
      /tool_call .* sh -c echo hello > greeting\.txt && cat greeting\.txt \(completed, exit 0/,
    );
    assert.ok(existsSync(join(dir, 'prefix', 'bin', 'provd')), 'npm link put provd on the PATH');
    // dist/ was up to date: npm start built nothing, it only started the daemon
    const log = readFileSync('/tmp/provd.log', 'utf8');
    assert.doesNotMatch(log, /compiling TypeScript/);
    assert.equal(groupAlive(shell.pid!), false, 'the daemon stopped on SIGTERM');
  });
});
