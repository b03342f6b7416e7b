// The README's quickstart, run exactly as written from a fresh `git clone` of this checkout's
// committed HEAD (no node_modules, no dist/, as a new user has it): it sets up, puts `provd` on the
// PATH, starts the daemon with a token, waits until it is ready, records a real command, verifies the
// run and shows its timeline. Then again on the clone as the first run left it, and once more with the
// daemon's port taken, where the wait must end with the daemon's reason instead of hanging. The clone
// builds its own dist/, never this checkout's. As root the daemon starts its eBPF sensor
// (sensor: true), so the runner gives this file the host to itself.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { packageRoot } from '../../src/shared/package-root.js';
import { startDaemon, type RunningDaemon } from '../support/daemon.js';
import { freePort } from '../support/free-port.js';

/** The commands between the quickstart markers of a README, without the fence. */
function quickstartCommands(readme: string): string[] {
  const block = /<!-- quickstart[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/quickstart -->/.exec(readme);
  assert.ok(block, 'the README marks its quickstart');
  return block[1]!.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
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

/** Runs `command` and fails with what it printed unless it exits 0. */
function mustRun(command: string, args: string[], cwd?: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(' ')}: ${result.error?.message ?? ''}${result.stderr}`,
  );
  return result.stdout.trim();
}

/** What one quickstart printed: the shell's stdout and stderr, and the daemon's log. */
interface QuickstartRun {
  code: number | null;
  /** the shell was killed at the deadline: a hang */
  hung: boolean;
  stdout: string;
  stderr: string;
  log: string;
}

/** The README's log file (the quickstart redirects the daemon's output there). */
const daemonLog = '/tmp/provd.log';

/** The end of everything a run printed, for a failed assertion to show. */
function tail(run: QuickstartRun): string {
  const all = `--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n--- ${daemonLog}\n${run.log}`;
  return `${run.hung ? 'HUNG (killed at the deadline)\n' : ''}exit ${run.code}\n${all.slice(-12_000)}`;
}

/**
 * Runs the quickstart's commands in `cwd` as one bash script (`set -e`: the first failing command
 * ends it), kills it at `deadlineMs`, then stops what it left in the background (the daemon) with
 * SIGTERM, as `kill %1` does, and waits for it to end.
 */
async function runQuickstart(
  commands: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  deadlineMs: number,
): Promise<QuickstartRun> {
  rmSync(daemonLog, { force: true });
  const shell = spawn('bash', ['-c', ['set -e', ...commands].join('\n')], { cwd, env, detached: true });
  let stdout = '';
  let stderr = '';
  shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    process.kill(-shell.pid!, 'SIGKILL');
  }, deadlineMs);
  const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));
  clearTimeout(timer);
  if (groupAlive(shell.pid!)) process.kill(-shell.pid!, 'SIGTERM');
  for (let waited = 0; groupAlive(shell.pid!) && waited < 60_000; waited += 250) await delay(250);
  const stopped = !groupAlive(shell.pid!);
  if (!stopped) process.kill(-shell.pid!, 'SIGKILL');
  const log = existsSync(daemonLog) ? readFileSync(daemonLog, 'utf8') : '';
  const run = { code, hung, stdout, stderr, log };
  assert.ok(stopped, `what the quickstart left running stops on SIGTERM\n${tail(run)}`);
  return run;
}

describe('the README quickstart, on a fresh clone', function () {
  // a fresh clone installs and builds everything: 3.5 to 6 minutes on 2 cores shared with other builds
  const freshDeadlineMs = 15 * 60_000;
  const setUpDeadlineMs = 4 * 60_000;
  this.timeout(freshDeadlineMs + 2 * 60_000);
  let dir = '';
  let clone = '';
  let commands: string[] = [];
  let env: NodeJS.ProcessEnv = {};
  /** The tool call the first quickstart recorded. */
  let firstToolCall = '';

  before(function () {
    if (process.platform !== 'linux') {
      console.log('    skipped: provd runs on Linux only');
      this.skip();
    }
    assert.equal(
      process.getuid?.(),
      0,
      'the quickstart test runs as root, as CI does (bash .ci/run): its daemon starts the eBPF sensor and records commands in a cgroup of its own',
    );
    for (const tool of ['git', 'openssl', 'npm'])
      assert.equal(spawnSync('sh', ['-c', `command -v ${tool}`]).status, 0, `${tool} is on the PATH`);
    dir = mkdtempSync(join(tmpdir(), 'provd-quickstart-'));
    clone = join(dir, 'provd');
    // what is committed here, as `git clone` gives it: no node_modules, no dist/, nothing ignored
    const head = mustRun('git', ['rev-parse', 'HEAD'], packageRoot);
    mustRun('git', ['clone', '--quiet', '--no-checkout', packageRoot, clone]);
    mustRun('git', ['checkout', '--quiet', '--detach', head], clone);
    commands = quickstartCommands(readFileSync(join(clone, 'README.md'), 'utf8'));
    // a new user's shell: none of this run's npm or provd settings; only where things go is the
    // test's (the daemon's data, its port, npm link's prefix), never the commands
    const inherited = Object.entries(process.env).filter(
      ([key]) => !/^(npm_|PROVD_|INIT_CWD$|NODE_ENV$)/i.test(key),
    );
    env = {
      ...Object.fromEntries(inherited),
      PROVD_HOME: join(dir, 'home'),
      npm_config_prefix: join(dir, 'prefix'),
      PATH: `${join(dir, 'prefix', 'bin')}:${process.env['PATH'] ?? ''}`,
    };
  });

  after(function () {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    rmSync(daemonLog, { force: true });
  });

  /** `env` with the daemon at `port`. */
  const at = (port: number): NodeJS.ProcessEnv => ({
    ...env,
    PROVD_LISTEN: `127.0.0.1:${port}`,
    PROVD_URL: `http://127.0.0.1:${port}`,
  });

  it('is at most ten commands', function () {
    assert.ok(commands.length <= 10, commands.join('\n'));
  });

  it('installs, builds, starts the daemon with a token, records a command, verifies the run and shows its timeline', async function () {
    const run = await runQuickstart(commands, clone, at(await freePort()), freshDeadlineMs);
    const output = tail(run);
    assert.equal(run.code, 0, output);
    // it was a fresh clone: npm ci and the compiler ran
    assert.match(run.stderr + run.log, /provd: installing npm packages \(npm ci\)/, output);
    assert.match(run.stderr + run.log, /provd: compiling TypeScript into dist\//, output);
    assert.ok(existsSync(join(dir, 'prefix', 'bin', 'provd')), 'npm link put provd on the PATH');
    assert.match(run.stdout, /^health: (ok|degraded) \(ready\)$/m, output);
    assert.match(run.stdout, /^hello$/m, output);
    const recorded = /recorded tool call (tc_\w+) of run hello: completed, exit 0, 1 file effect/.exec(
      run.stderr,
    );
    assert.ok(recorded, output);
    firstToolCall = recorded[1]!;
    assert.match(run.stdout, /^verify hello: ok \(0 issues: 0 errors, 0 warnings\)$/m, output);
    assert.match(run.stdout, /^TIME \(UTC\) +KIND +TOOL CALL +EVIDENCE +SUMMARY$/m, output);
    assert.match(
      run.stdout,
      /^.* file_effect +tc_\w+ +self_observed +created greeting\.txt \(6 bytes\)$/m,
      output,
    );
    assert.match(
      run.stdout,
      /tool_call .* sh -c echo hello > greeting\.txt && cat greeting\.txt \(completed, exit 0/,
      output,
    );
  });

  it('works again on the clone as the first run left it, installing and building nothing', async function () {
    const run = await runQuickstart(commands, clone, at(await freePort()), setUpDeadlineMs);
    const output = tail(run);
    assert.equal(run.code, 0, output);
    assert.doesNotMatch(run.stderr + run.log, /installing npm packages|compiling TypeScript/, output);
    assert.match(run.stdout, /^hello$/m, output);
    const recorded = /recorded tool call (tc_\w+) of run hello: completed, exit 0, 1 file effect/.exec(
      run.stderr,
    );
    assert.ok(recorded, output);
    // the same run in the same data: a second tool call, the first one's still there (the timeline
    // lists the oldest first), and the whole still verifies
    assert.notEqual(firstToolCall, '', 'the first quickstart recorded a tool call');
    assert.notEqual(recorded[1], firstToolCall);
    assert.match(run.stdout, new RegExp(`^.* tool_call +${firstToolCall} +self_observed `, 'm'), output);
    assert.match(run.stdout, /^verify hello: ok \(0 issues: 0 errors, 0 warnings\)$/m, output);
  });

  describe('with the port taken by another daemon', function () {
    let other: RunningDaemon | undefined;

    afterEach(async function () {
      await other?.stop();
    });

    it("ends the wait with the daemon's reason, never hanging, and runs nothing after it", async function () {
      // an earlier daemon still running on the port, with a token of its own
      other = await startDaemon({ authToken: 'a-token-of-an-earlier-daemon' });
      const run = await runQuickstart(commands, clone, at(other.port), setUpDeadlineMs);
      const output = tail(run);
      assert.equal(run.hung, false, output);
      assert.notEqual(run.code, 0, output);
      // the wait says why, in the daemon's own words, without sending the user to look for them
      assert.match(run.stderr, new RegExp(`failed to listen on 127\\.0\\.0\\.1:${other.port}`), output);
      assert.doesNotMatch(run.stdout, /^hello$/m, output);
      assert.doesNotMatch(run.stderr + run.stdout, /recorded tool call|unauthorized/, output);
    });
  });
});
