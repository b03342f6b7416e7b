import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stubArgv, watchNonceVariable } from '../../src/agents/watch/watch-stub.js';
import { watchCgroupName } from '../../src/agents/watch/watches.js';
import { cgroup2MountPoint, probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { runCli } from '../support/cli.js';
import { cliPath, freePort, startDaemon, useSharedDaemon } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'watch-test-token';
const auth = { authorization: `Bearer ${token}` };
const nobody = { uid: 65534, gid: 65534 };

/** The cgroup v2 path a process's /proc/PID/cgroup names. */
function cgroupOf(text: string): string | undefined {
  return /^0::(\S+)$/m.exec(text)?.[1];
}

describe('provd watch', function () {
  const shared = useSharedDaemon({ authToken: token });
  const work = useTempDir('provd-watch-');
  const watch = (args: string[], env: Record<string, string> = {}) =>
    runCli(['watch', ...args], { env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token, ...env } });
  before(function () {
    if (process.getuid?.() === 0 && probeRecordCgroupRoot(undefined, 'provd-watch').status === 'ok') return;
    process.stderr.write(
      '      skipped: provd watch needs a daemon that can make cgroups (root, cgroup v2)\n',
    );
    this.skip();
  });

  it('runs the command and its children in a cgroup of its own, bound control_plane to the run before it starts', async function () {
    const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'))!;
    const script = `cat /proc/self/cgroup; sh -c 'cat /proc/self/cgroup'; stat -c 'inode %i' "${mount}$(sed -n 's/^0:://p' /proc/$$/cgroup)"`;
    const { code, stdout, stderr } = await watch(['--run', 'run-cgroup', '--', 'sh', '-c', script]);
    assert.equal(code, 0, stderr);
    const [own, child] = stdout
      .split('0::')
      .slice(1)
      .map((part) => '0::' + part.split('\n')[0]);
    const dataDirCgroup = watchCgroupName(shared.daemon.dataDir);
    assert.match(own!, new RegExp(`^0::/(.+/)?${dataDirCgroup}/run-cgroup-[0-9a-f]{12}$`));
    assert.equal(child, own, 'the child is in the same cgroup');
    const inode = /inode (\d+)/.exec(stdout)?.[1];
    assert.match(stderr, new RegExp(`watching sh in run run-cgroup \\(cgroup ${mount}${cgroupOf(own!)}\\)`));
    const { body } = await request(shared.daemon.url, '/v1/context/entries?run=run-cgroup', {
      headers: auth,
    });
    const summaries = (body['entries'] as { summary: string }[]).map((entry) => entry.summary);
    assert.ok(
      summaries.includes(`binding of tool call agent (control_plane, confidence 1) on cgroup_id ${inode}`),
      summaries.join('\n'),
    );
    assert.ok(summaries.includes(`watch of sh started in cgroup ${inode}`), summaries.join('\n'));
    // the cgroup is removed once empty
    await eventually(
      'the cgroup removed',
      () => existsSync(`${mount}${cgroupOf(own!)}`),
      (exists) => !exists,
    );
    const verified = await runCli(['verify', 'run-cgroup'], {
      env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
    });
    assert.match(verified.stdout, /verify run-cgroup: ok/);
  });

  it("gives the command the user's environment without provd's token, with PROVD_RUN", async function () {
    const { code, stdout, stderr } = await watch(['--run', 'run-env', '--', 'env'], {
      PROVD_AUTH_TOKEN_FILE: '/nonexistent/token',
      USERS_OWN: 'kept',
    });
    assert.equal(code, 0, stderr);
    const names = stdout.split('\n').map((line) => line.split('=')[0]);
    assert.ok(stdout.includes('USERS_OWN=kept\n'));
    assert.ok(stdout.includes('PROVD_RUN=run-env\n'));
    for (const name of ['PROVD_AUTH_TOKEN', 'PROVD_AUTH_TOKEN_FILE', watchNonceVariable])
      assert.ok(!names.includes(name), `${name} reached the command`);
    assert.ok(!stdout.includes(token));
  });

  it("exits with the command's exit code, or 128+N for signal N, and records it", async function () {
    assert.equal((await watch(['--', 'true'])).code, 0);
    const three = await watch(['--run', 'run-three', '--', 'sh', '-c', 'exit 3']);
    assert.equal(three.code, 3);
    assert.match(
      three.stderr,
      /run run-three ended: the agent ended \(exit 3\), sealed \(sha256:[0-9a-f]{64}\)/,
    );
    const killed = await watch(['--run', 'run-killed', '--', 'sh', '-c', 'kill -KILL $$']);
    assert.equal(killed.code, 137);
    assert.match(killed.stderr, /the agent ended \(killed by SIGKILL\)/);
  });

  it('passes SIGTERM sent to provd watch on to the command', async function () {
    const child = spawn(
      process.execPath,
      [
        cliPath,
        'watch',
        '--',
        'sh',
        '-c',
        'trap "echo got-term; exit 9" TERM; echo ready; while :; do sleep 0.05; done',
      ],
      { env: { ...process.env, PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token } },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    await eventually(
      'ready',
      () => out,
      (text) => text.includes('ready'),
    );
    child.kill('SIGTERM');
    const [code] = (await once(child, 'close')) as [number];
    assert.equal(code, 9);
    assert.equal(out.match(/got-term/g)?.length, 1);
  });

  it('passes the terminal through: a tty on all three streams, its size, the foreground group, Ctrl-C', async function () {
    const agent =
      '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-tty; stty size; set -- $(cat /proc/$$/stat); ' +
      '[ "$5" = "$8" ] && echo foreground; trap "echo got-int; exit 7" INT; echo ready; while :; do sleep 0.05; done';
    const command = `stty rows 41 cols 101; exec ${process.execPath} ${cliPath} watch -- sh -c '${agent}'`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    await eventually(
      'ready',
      () => out,
      (text) => text.includes('ready'),
    );
    child.stdin.write('\x03'); // Ctrl-C on the terminal: SIGINT to its foreground group
    const [code] = (await once(child, 'close')) as [number];
    assert.match(out, /all-tty/);
    assert.match(out, /41 101/);
    assert.match(out, /foreground/);
    assert.equal(out.match(/got-int/g)?.length, 1, out);
    assert.equal(code, 7, out);
  });

  it('leaves processes the command left in its cgroup, bound, and removes the cgroup once they exit', async function () {
    const { code, stderr } = await watch([
      '--run',
      'run-left',
      '--',
      'sh',
      '-c',
      'sleep 1 >/dev/null 2>&1 & exit 0',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /1 of its processes still run in its cgroup, bound to the run until they exit/);
    const path = /\(cgroup (\S+)\)/.exec(stderr)![1]!;
    await eventually(
      'the cgroup removed',
      () => existsSync(path),
      (exists) => !exists,
    );
  });

  it('refuses a watch started from inside a watched command: its processes stay in the run', async function () {
    // with the token, as a tool call that found it would have it
    const inner = `PROVD_AUTH_TOKEN=${token} ${process.execPath} ${cliPath} watch -- touch ${join(work.path, 'escaped')}`;
    const { code, stderr } = await watch(['--run', 'run-outer', '--', 'sh', '-c', inner]);
    assert.equal(code, 125, stderr);
    assert.match(stderr, /forbidden: process \d+ is in a watched agent's cgroup \(run-outer-[0-9a-f]{12}\)/);
    assert.equal(existsSync(join(work.path, 'escaped')), false);
  });

  it('never starts the command when it cannot be watched', async function () {
    const marker = join(work.path, 'ran');
    const touch = ['touch', marker];
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await watch(['--url', closed, '--', ...touch]);
    assert.equal(unreachable.code, 125);
    assert.match(unreachable.stderr, /cannot reach the daemon.*the agent was not started/);
    assert.equal((await watch(['--run', 'run-taken', '--', 'true'])).code, 0);
    const taken = await watch(['--run', 'run-taken', '--', ...touch]);
    assert.equal(taken.code, 125);
    assert.match(taken.stderr, /run_exists: run "run-taken" exists already/);
    for (const bad of ['bad\u0001id', 'r'.repeat(257)]) {
      const refused = await watch(['--run', bad, '--', ...touch]);
      assert.equal(refused.code, 125);
      assert.match(refused.stderr, /invalid_argument: .*run_id/);
    }
    const undashed = await watch(touch);
    assert.equal(undashed.code, 2);
    assert.match(undashed.stderr, /put -- before the agent's command/);
    assert.equal((await watch(['--agent', 'cursor', '--', ...touch])).code, 2);
    assert.equal(existsSync(marker), false, 'a refused watch ran its command');
  });

  it("refuses to move a process that is not the caller's waiting stub", async function () {
    const nonce = randomBytes(32).toString('hex');
    const stub = spawn(stubArgv[0]!, [...stubArgv.slice(1), 'true'], {
      env: { ...process.env, [watchNonceVariable]: nonce },
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    try {
      const before = readFileSync('/proc/self/cgroup', 'utf8');
      const ask = (pid: number, given: string) =>
        request(shared.daemon.url, '/v1/watch', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ run_id: `run-forged-${pid}-${given.slice(0, 4)}`, pid, nonce: given }),
        });
      const notStub = await ask(process.pid, nonce);
      assert.equal(notStub.status, 403);
      assert.match(JSON.stringify(notStub.body), /is not a waiting provd watch stub/);
      assert.equal(readFileSync('/proc/self/cgroup', 'utf8'), before);
      const wrongNonce = await ask(stub.pid!, randomBytes(32).toString('hex'));
      assert.equal(wrongNonce.status, 403);
      assert.match(JSON.stringify(wrongNonce.body), /does not hold this watch's nonce/);
      assert.equal(cgroupOf(readFileSync(`/proc/${stub.pid}/cgroup`, 'utf8')), cgroupOf(before));
      const right = await ask(stub.pid!, nonce);
      assert.equal(right.status, 200, JSON.stringify(right.body));
      const ended = await request(shared.daemon.url, '/v1/watch/end', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: right.body['run_id'],
          nonce: randomBytes(32).toString('hex'),
          exit_code: 0,
        }),
      });
      assert.equal(ended.status, 404);
    } finally {
      stub.kill('SIGKILL');
    }
  });

  it('removes, after a restart, the cgroup of an agent a daemon before it watched, once it empties', async function () {
    const dataDir = mkdtempSync(join(tmpdir(), 'provd-watch-restart-'));
    const nonce = randomBytes(32).toString('hex');
    const stub = spawn(stubArgv[0]!, [...stubArgv.slice(1), 'true'], {
      env: { ...process.env, [watchNonceVariable]: nonce },
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    try {
      const first = await startDaemon({ dataDir, authToken: token });
      const started = await request(first.url, '/v1/watch', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ run_id: 'run-restart', pid: stub.pid, nonce }),
      });
      await first.stop();
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const path = (started.body['cgroup'] as { path: string }).path;
      const second = await startDaemon({ dataDir, authToken: token });
      try {
        assert.equal(existsSync(path), true, 'the agent still runs there');
        stub.kill('SIGKILL');
        await eventually(
          'the cgroup removed',
          () => existsSync(path),
          (exists) => !exists,
        );
      } finally {
        await second.stop();
      }
    } finally {
      stub.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('takes over at its start only the cgroups of its own data dir, never those of a daemon beside it', async function () {
    // what a daemon beside it (another data dir, same cgroup) has made and not yet moved its agent into
    const root = probeRecordCgroupRoot(undefined, 'provd-watch');
    assert.equal(root.status, 'ok');
    const besideIt = join((root as { path: string }).path, `beside-${randomBytes(6).toString('hex')}`);
    mkdirSync(besideIt);
    const dataDir = mkdtempSync(join(tmpdir(), 'provd-watch-beside-'));
    try {
      const daemon = await startDaemon({ dataDir, authToken: token });
      await daemon.stop();
      assert.equal(existsSync(besideIt), true, 'the empty cgroup of another daemon is left alone');
    } finally {
      if (existsSync(besideIt)) rmdirSync(besideIt);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says so, and runs nothing, when the daemon may not make cgroups', async function () {
    const dataDir = mkdtempSync(join(tmpdir(), 'provd-watch-nobody-'));
    chownSync(dataDir, nobody.uid, nobody.gid);
    const daemon = await startDaemon({ dataDir, identity: nobody });
    try {
      const marker = join(work.path, 'ran');
      const { code, stderr } = await runCli(['watch', '--url', daemon.url, '--', 'touch', marker]);
      assert.equal(code, 125);
      assert.match(
        stderr,
        /forbidden: the daemon cannot make cgroups for watched agents: .*the agent was not started\n$/,
      );
      assert.equal(stderr.match(/the agent was not started/g)?.length, 1, stderr);
      assert.equal(existsSync(marker), false);
    } finally {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
