// The README's quickstart, run exactly as written from a fresh `git clone` of this checkout's
// committed HEAD (no node_modules, no dist/, as a new user has it): it sets up, puts `provd` on the
// PATH, starts the daemon with a token, waits until it is ready, installs provd's hooks into Claude
// Code's settings, watches a real Claude Code session, verifies the run and shows it as a session.
// The test gives only what a user's machine has: the pinned `claude` CLI on the PATH, its model
// endpoint (the project's scripted model server, which has the agent run one Bash tool call writing
// greeting.txt) and a home of its own. Then again on the clone as the first run left it, and once
// more with the daemon's port taken, where the wait must end with the daemon's reason instead of
// hanging. The clone builds its own dist/, never this checkout's. As root the daemon starts its eBPF
// sensor with the default capture, which stores only the agent it watches (what other test files run
// meanwhile is filtered out in the kernel), so the runner runs this file beside the others:
// run-suites: capture agents only (the README's `provd daemon`; the test's own daemons have no sensor)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { packageRoot } from '../../src/shared/package-root.js';
import { agentCommand, agentMissing } from '../support/agents/installed-agents.js';
import { ScriptedModelServer } from '../support/agents/model-server.js';
import { runCli } from '../support/cli.js';
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

/** The scripted model's turns for one quickstart: one Bash tool call writing greeting.txt, then a reply. */
function greetingScript(toolCall: string) {
  return [
    { calls: [{ id: toolCall, kind: 'shell' as const, command: 'echo hello > greeting.txt' }] },
    { text: 'I ran echo hello > greeting.txt.' },
  ];
}

/** What the greeting.txt of each scratch directory (`mktemp -d` under `tmp`) holds. */
function greetings(tmp: string): string[] {
  return readdirSync(tmp)
    .filter((name) => name.startsWith('tmp.') && existsSync(join(tmp, name, 'greeting.txt')))
    .map((name) => readFileSync(join(tmp, name, 'greeting.txt'), 'utf8'));
}

/** The tool call's shell, under it, tied by the kernel's account, and its write of greeting.txt. */
const shellUnderCall =
  /^│ {2}[├└]─ process \d+ \(ppid \d+\) \/bin\/bash -c .*eval 'echo hello > greeting\.txt'.* +\[kernel_correlated by hook_exec_match 0\.95\]$/m;
const shellWrite = /^│ {5}[├└]─ .* bash\[\d+\] file_write \/\S+\/greeting\.txt +\[kernel_correlated\]$/m;

/** Asserts the timeline of the quickstart's session: its tool call, decision, input and shell. */
function assertSession(run: QuickstartRun, toolCall: string): void {
  const output = tail(run);
  assert.match(
    run.stdout,
    /^agent session first-session \(claude\): 1 prompt, 1 tool call: 1 allowed \(1 completed\), 0 denied$/m,
    output,
  );
  assert.match(
    run.stdout,
    new RegExp(
      `^├─ .* tool call ${toolCall}: Bash allowed \\(default_allow\\), completed, \\d+ ms +\\[context_asserted\\]$`,
      'm',
    ),
    output,
  );
  assert.match(run.stdout, /^│ {2}├─ input: \{"command":"echo hello > greeting\.txt"\}$/m, output);
  // the shell Claude Code started for the call, under it, once the sensor's batch is stored (about
  // a second after the call); the README says a timeline run before then shows `no process seen`
  if (!/^│ {2}└─ no process seen$/m.test(run.stdout)) {
    assert.match(run.stdout, shellUnderCall, output);
    assert.match(run.stdout, shellWrite, output);
  }
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

  before(function () {
    if (process.platform !== 'linux') {
      console.log('    skipped: provd runs on Linux only');
      this.skip();
    }
    const missing = agentMissing('claude');
    if (missing !== undefined) {
      console.log(`    skipped: the quickstart watches Claude Code: ${missing}`);
      this.skip();
    }
    assert.equal(
      process.getuid?.(),
      0,
      'the quickstart test runs as root, as CI does (bash .ci/run): its daemon starts the eBPF sensor and watches the agent in a cgroup of its own',
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
    // the user's `claude`, installed as `npm install -g` would: a command on the PATH
    const agentBin = join(dir, 'agent-bin');
    mkdirSync(agentBin);
    symlinkSync(agentCommand('claude'), join(agentBin, 'claude'));
    for (const made of ['home', 'tmp']) mkdirSync(join(dir, made));
    // a new user's shell: none of this run's npm or provd settings; only where things go is the
    // test's (the daemon's data, its port, npm link's prefix, the home the hooks are installed
    // in, temporary files; npm's cache stays the machine's), never the commands
    const npmCache = process.env['npm_config_cache'] ?? join(homedir(), '.npm');
    const inherited = Object.entries(process.env).filter(
      ([key]) => !/^(npm_|PROVD_|INIT_CWD$|NODE_ENV$|ANTHROPIC_|CLAUDE_)/i.test(key),
    );
    env = {
      ...Object.fromEntries(inherited),
      HOME: join(dir, 'home'),
      TMPDIR: join(dir, 'tmp'),
      npm_config_cache: npmCache,
      npm_config_prefix: join(dir, 'prefix'),
      PATH: `${join(dir, 'prefix', 'bin')}:${agentBin}:${process.env['PATH'] ?? ''}`,
      // Claude Code's model endpoint is the test's (below); a key it sends there, and no calls home
      ANTHROPIC_API_KEY: 'quickstart-test-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
  });

  after(function () {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    rmSync(daemonLog, { force: true });
  });

  /**
   * Runs the quickstart with the daemon at `port`, its data in `data`, and Claude Code's model a
   * scripted server that has it make the tool call `toolCall`.
   */
  async function quickstart(port: number, data: string, toolCall: string, deadlineMs: number) {
    const model = await ScriptedModelServer.start('claude', greetingScript(toolCall));
    try {
      return await runQuickstart(
        commands,
        clone,
        {
          ...env,
          PROVD_HOME: join(dir, data),
          PROVD_LISTEN: `127.0.0.1:${port}`,
          PROVD_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_BASE_URL: model.baseUrl,
        },
        deadlineMs,
      );
    } finally {
      await model.close();
    }
  }

  it('is at most ten commands', function () {
    assert.ok(commands.length <= 10, commands.join('\n'));
  });

  it('installs, builds, starts the daemon, installs the hooks, watches Claude Code, verifies the run and shows the session', async function () {
    const run = await quickstart(await freePort(), 'data-1', 'toolu_quickstart_1', freshDeadlineMs);
    const output = tail(run);
    assert.equal(run.code, 0, output);
    // it was a fresh clone: npm ci and the compiler ran
    assert.match(run.stderr + run.log, /provd: installing npm packages \(npm ci\)/, output);
    assert.match(run.stderr + run.log, /provd: compiling TypeScript into dist\//, output);
    assert.ok(existsSync(join(dir, 'prefix', 'bin', 'provd')), 'npm link put provd on the PATH');
    assert.match(run.stdout, /^health: (ok|degraded) \(ready\)$/m, output);
    const settings = join(dir, 'home', '.claude', 'settings.json');
    assert.ok(
      run.stdout.includes(`wrote ${settings}: provd's hook on SessionStart, UserPromptSubmit, PreToolUse`),
      output,
    );
    assert.match(run.stderr, /^provd: watching claude in run first-session /m, output);
    assert.match(
      run.stderr,
      /^provd: run first-session ended: the agent ended \(exit 0\), sealed \(sha256:[0-9a-f]{64}\)$/m,
      output,
    );
    assert.match(run.stdout, /^verify first-session: ok \(0 issues: 0 errors, 0 warnings\)$/m, output);
    assertSession(run, 'toolu_quickstart_1');
    assert.deepEqual(greetings(join(dir, 'tmp')), ['hello\n'], output);
    // the kernel's account, as the user reads it later: the daemon the quickstart stopped flushed
    // its batches; started again on the same data, the timeline shows the call's shell and its write
    const again = await startDaemon({ dataDir: join(dir, 'data-1'), authToken: 'quickstart-reread' });
    try {
      const timeline = await runCli(['timeline', 'first-session'], {
        env: { PROVD_URL: again.url, PROVD_AUTH_TOKEN: 'quickstart-reread' },
      });
      assert.equal(timeline.code, 0, timeline.stderr);
      assert.match(timeline.stdout, shellUnderCall, timeline.stdout);
      assert.match(timeline.stdout, shellWrite, timeline.stdout);
    } finally {
      await again.stop();
    }
  });

  it('works again on the clone as the first run left it, installing and building nothing', async function () {
    // a new data dir: a watch starts a run of its own, and first-session is the first run's
    const run = await quickstart(await freePort(), 'data-2', 'toolu_quickstart_2', setUpDeadlineMs);
    const output = tail(run);
    assert.equal(run.code, 0, output);
    assert.doesNotMatch(run.stderr + run.log, /installing npm packages|compiling TypeScript/, output);
    assert.match(run.stdout, /provd's hooks are already installed, nothing changed$/m, output);
    assert.match(run.stdout, /^verify first-session: ok \(0 issues: 0 errors, 0 warnings\)$/m, output);
    assertSession(run, 'toolu_quickstart_2');
    assert.deepEqual(greetings(join(dir, 'tmp')), ['hello\n', 'hello\n'], output);
  });

  describe('with the port taken by another daemon', function () {
    let other: RunningDaemon | undefined;

    afterEach(async function () {
      await other?.stop();
    });

    it("ends the wait with the daemon's reason, never hanging, and runs nothing after it", async function () {
      // an earlier daemon still running on the port, with a token of its own
      other = await startDaemon({ authToken: 'a-token-of-an-earlier-daemon' });
      const run = await quickstart(other.port, 'data-3', 'toolu_quickstart_3', setUpDeadlineMs);
      const output = tail(run);
      assert.equal(run.hung, false, output);
      assert.notEqual(run.code, 0, output);
      // the wait says why, in the daemon's own words, without sending the user to look for them
      assert.match(run.stderr, new RegExp(`failed to listen on 127\\.0\\.0\\.1:${other.port}`), output);
      assert.doesNotMatch(run.stderr + run.stdout, /provd's hook|watching claude|unauthorized/, output);
    });
  });
});
