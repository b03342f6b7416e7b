import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import {
  chownSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cgroup2MountPoint,
  ownCgroupPath,
  probeRecordCgroupRoot,
} from '../../src/provenance/record/cgroup-root.js';
import {
  compareSnapshots,
  defaultSnapshotLimits,
  snapshot,
} from '../../src/provenance/record/file-effects.js';
import { SnapshotPool } from '../../src/provenance/record/snapshot-pool.js';
import { runCli, runDaemonCli } from '../support/cli.js';
import {
  assertStopsCleanly,
  useDaemonFixture,
  useSharedDaemon,
  type RunningDaemon,
} from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request, type JsonAnswer } from '../support/http.js';
import { ingest, nativeLine } from '../support/telemetry.js';
import { eventually } from '../support/eventually.js';

const token = 'record-test-token';
const auth = { authorization: `Bearer ${token}` };

const sha = (text: string): string => 'sha256:' + createHash('sha256').update(text).digest('hex');

/** POSTs a record body with the token; the answer is checked against the OpenAPI document. */
function record(
  daemon: RunningDaemon,
  body: unknown,
  headers: Record<string, string> = auth,
): Promise<JsonAnswer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return request(daemon.url, '/v1/record', { method: 'POST', headers, body: text });
}

/** True while a process with this pid exists (and is not a zombie we could still signal). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

const cgroupRoot = probeRecordCgroupRoot();

describe('POST /v1/record and provd record', function () {
  const fixture = useDaemonFixture();
  // one daemon with the token for the tests that read only their own record's answer (ids of
  // their own, or random ones), instead of one started a test
  const shared = useSharedDaemon({ authToken: token });
  let work = '';
  beforeEach(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-record-'));
  });
  afterEach(function () {
    rmSync(work, { recursive: true, force: true });
  });

  function skipWithoutCgroup(test: Mocha.Context): void {
    if (cgroupRoot.status === 'ok') return;
    process.stderr.write(`      skipped: ${cgroupRoot.message} (run the tests as root on cgroup v2)\n`);
    test.skip();
  }

  it('runs the command and stores its exit status, output artifacts and the files it created, changed and deleted', async function () {
    const { daemon } = shared;
    writeFileSync(join(work, 'keep.txt'), 'same\n');
    writeFileSync(join(work, 'change.txt'), 'old\n');
    writeFileSync(join(work, 'gone.txt'), 'bye\n');
    const script =
      'printf out; printf err >&2; echo new > made.txt; echo changed > change.txt; rm gone.txt; exit 3';
    const { status, body } = await record(daemon, {
      run_id: 'run-rec',
      tool_call_id: 'tc-files',
      command: 'sh',
      args: ['-c', script],
      cwd: work,
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['status'], 'failed');
    assert.equal(body['executed'], true);
    assert.equal(body['exit_code'], 3);
    assert.equal(body['signal'], null);
    assert.equal(body['evidence_level'], 'self_observed');
    const stdout = body['stdout'] as Record<string, unknown>;
    assert.deepEqual(
      { text: stdout['text'], hash: stdout['hash'], size: stdout['size'], truncated: stdout['truncated'] },
      { text: 'out', hash: sha('out'), size: 3, truncated: false },
    );
    assert.equal((body['stderr'] as Record<string, unknown>)['text'], 'err');
    const effects = (body['file_effects'] as Record<string, unknown>[]).map(
      ({ object_hash: objectHash, ...effect }) => {
        assert.match(String(objectHash), /^sha256:[0-9a-f]{64}$/);
        return effect;
      },
    );
    assert.deepEqual(effects, [
      {
        path: 'change.txt',
        effect: 'modified',
        kind: 'file',
        size: 8,
        hash_before: sha('old\n'),
        hash_after: sha('changed\n'),
      },
      {
        path: 'gone.txt',
        effect: 'deleted',
        kind: 'file',
        size: 4,
        hash_before: sha('bye\n'),
        hash_after: null,
      },
      {
        path: 'made.txt',
        effect: 'created',
        kind: 'file',
        size: 4,
        hash_before: null,
        hash_after: sha('new\n'),
      },
    ]);
    assert.equal(body['file_effects_complete'], true);
    // the tool call, its artifacts and effects are objects of the run's graph, and verify holds
    const verify = await request(daemon.url, '/v1/graph/verify?run=run-rec', { headers: auth });
    assert.equal(verify.body['status'], 'ok', JSON.stringify(verify.body));
    const summary = await request(daemon.url, '/v1/observe/summary?run=run-rec', { headers: auth });
    assert.equal(summary.status, 200);
  });

  it("finds an artifact's stored bytes edited or gone", async function () {
    let daemon = await fixture.start({ authToken: token });
    const { body } = await record(daemon, {
      run_id: 'run-t',
      command: 'echo',
      args: ['evidence'],
      cwd: work,
    });
    const address = String((body['stdout'] as Record<string, unknown>)['hash']);
    const verify = async (): Promise<Record<string, unknown>> =>
      (await request(daemon.url, '/v1/graph/verify?run=run-t', { headers: auth })).body;
    assert.equal((await verify())['status'], 'ok');
    const tamperings: [string, string][] = [
      [
        `UPDATE artifacts SET content = 'forged\n'::BLOB WHERE hash = '${address}'`,
        'artifact_content_mismatch',
      ],
      [`DELETE FROM artifacts WHERE hash = '${address}'`, 'artifact_missing'],
    ];
    for (const [statement, kind] of tamperings) {
      await assertStopsCleanly(daemon);
      await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) => db.run(statement));
      daemon = await fixture.start({ authToken: token });
      const result = await verify();
      assert.equal(result['status'], 'failed');
      assert.deepEqual(
        (result['issues'] as { kind: string }[]).map((issue) => issue.kind),
        [kind],
      );
    }
  });

  it('runs the command in a cgroup of its own, kills what it leaves behind, and removes the cgroup after', async function () {
    skipWithoutCgroup(this);
    const { daemon } = shared;
    const root = cgroupRoot.status === 'ok' ? cgroupRoot.path : '';
    const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'))!;
    // prints its own cgroup, whether that directory exists, and the pid of a child it leaves running
    const script =
      'p=$(sed -n "s/^0:://p" /proc/self/cgroup); echo "$p"; test -d "$1$p" && echo present; sleep 60 & echo $!';
    const { body } = await record(daemon, { command: 'sh', args: ['-c', script, 'sh', mount], cwd: work });
    assert.equal(body['status'], 'completed', JSON.stringify(body));
    const cgroup = body['cgroup'] as Record<string, unknown>;
    assert.equal(cgroup['status'], 'used');
    assert.ok(String(cgroup['path']).startsWith(root + '/'), String(cgroup['path']));
    const [ownCgroup, present, leftover] = String((body['stdout'] as Record<string, unknown>)['text'])
      .trim()
      .split('\n');
    assert.equal(mount + ownCgroup, cgroup['path']);
    assert.equal(present, 'present');
    assert.equal(body['leftover_processes_killed'], 1);
    assert.equal(alive(Number(leftover)), false, `leftover ${leftover} still runs`);
    assert.equal(cgroup['removed'], true);
    assert.equal(existsSync(String(cgroup['path'])), false);
    assert.match(String(cgroup['id']), /^\d+$/);
  });

  it("attributes the runtime events of the command's cgroup to its run and tool call, kernel_correlated", async function () {
    skipWithoutCgroup(this);
    const { daemon } = shared;
    const { body } = await record(daemon, {
      run_id: 'run-k',
      tool_call_id: 'tc-k',
      command: 'true',
      cwd: work,
    });
    const cgroupId = String((body['cgroup'] as Record<string, unknown>)['id']);
    // what a sensor would report of the command's process: its cgroup id, during the command
    const line = nativeLine({ cgroup_id: cgroupId, timestamp: body['started_at'], pid: 9999, tgid: 9999 });
    assert.equal((await ingest(daemon.url, line, 'native')).status, 401);
    const accepted = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers: auth,
      body: line,
    });
    assert.equal(accepted.body['accepted'], 1);
    const events = await request(daemon.url, '/v1/telemetry/events?run=run-k', { headers: auth });
    const [event] = events.body['events'] as Record<string, unknown>[];
    assert.equal(event?.['tool_call_id'], 'tc-k');
    assert.equal(event?.['binding_id'], body['binding_id']);
    assert.deepEqual(event?.['correlation'], {
      method: 'cgroup',
      confidence: 0.98,
      evidence_level: 'kernel_correlated',
    });
  });

  it('kills the whole tree at the timeout and says so', async function () {
    const { daemon } = shared;
    const { body } = await record(daemon, {
      command: 'sh',
      args: ['-c', 'sleep 60 & echo $!; sleep 60'],
      cwd: work,
      timeout_ms: 300,
    });
    assert.equal(body['status'], 'timeout', JSON.stringify(body));
    assert.equal(body['signal'], 'SIGKILL');
    assert.equal(body['exit_code'], null);
    const child = Number(String((body['stdout'] as Record<string, unknown>)['text']).trim());
    assert.equal(alive(child), false, `child ${child} of the timed-out command still runs`);
  });

  it('stores an asserted tool call with execute:false and runs nothing, with or without a token', async function () {
    const daemon = await fixture.start();
    const { status, body } = await record(
      daemon,
      { run_id: 'run-a', tool_call_id: 'tc-a', command: 'touch', args: [join(work, 'ran')], execute: false },
      {},
    );
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['status'], 'asserted');
    assert.equal(body['executed'], false);
    assert.equal(body['evidence_level'], 'context_asserted');
    assert.equal(body['stdout'], null);
    assert.equal(existsSync(join(work, 'ran')), false);
    const verify = await request(daemon.url, '/v1/graph/verify?run=run-a');
    assert.equal(verify.body['status'], 'ok');
    // executing needs a token: without one any local user could run commands as the daemon
    const refused = await record(daemon, { command: 'touch', args: [join(work, 'ran')], cwd: work }, {});
    assert.equal(refused.status, 403);
    assert.equal((refused.body['error'] as Record<string, unknown>)['code'], 'forbidden');
    assert.equal(existsSync(join(work, 'ran')), false);
  });

  it('refuses bad bodies naming the field, a tool call its run holds, and records a program that is not there as an error', async function () {
    const { daemon } = shared;
    const bad: [unknown, RegExp][] = [
      ['{"command":', /JSON/],
      [[], /object/],
      [{}, /command/],
      [{ command: 7 }, /command/],
      [{ command: '' }, /command/],
      [{ command: 'true', args: 'x' }, /args/],
      [{ command: 'true', args: ['a\u0000b'] }, /args/],
      [{ command: 'true', cwd: 'relative/dir' }, /cwd/],
      [{ command: 'true', cwd: join(work, 'missing') }, /cwd.*does not exist/],
      [{ command: 'true', timeout_ms: 0 }, /timeout_ms/],
      [{ command: 'true', shell: true }, /shell/],
      [{ command: 'true', execute: 'yes' }, /execute/],
    ];
    for (const [body, message] of bad) {
      const answer = await record(daemon, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      const error = answer.body['error'] as Record<string, unknown>;
      assert.equal(error['code'], 'invalid_argument');
      assert.match(String(error['message']), message, JSON.stringify(body));
    }
    const first = await record(daemon, { run_id: 'run-d', tool_call_id: 'tc-d', command: 'true', cwd: work });
    assert.equal(first.status, 200);
    const again = await record(daemon, {
      run_id: 'run-d',
      tool_call_id: 'tc-d',
      command: 'touch',
      args: ['x'],
      cwd: work,
    });
    assert.equal(again.status, 409);
    assert.equal((again.body['error'] as Record<string, unknown>)['code'], 'tool_call_exists');
    assert.equal(existsSync(join(work, 'x')), false);
    const missing = await record(daemon, { command: 'provd-no-such-program', cwd: work });
    assert.equal(missing.body['status'], 'error');
    assert.match(String(missing.body['error']), /not found in PATH/);
    assert.equal(missing.body['pid'], null);
  });

  it("provd record prints the command's output and exits with its status", async function () {
    const { daemon } = shared;
    const env = { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: token };
    const ran = await runCli(
      [
        'record',
        '--run',
        'run-cli',
        '--tool-call',
        'tc-cli',
        '--',
        'sh',
        '-c',
        'echo hi; echo oops >&2; exit 5',
      ],
      { env, cwd: work },
    );
    assert.equal(ran.code, 5, ran.stderr);
    assert.equal(ran.stdout, 'hi\n');
    assert.match(ran.stderr, /^oops\nprovd: recorded tool call tc-cli of run run-cli: failed, exit 5/);
    const asserted = await runCli(['record', '--assert', '--', 'touch', 'never'], {
      env,
      cwd: work,
    });
    assert.equal(asserted.code, 0, asserted.stderr);
    assert.equal(existsSync(join(work, 'never')), false);
    const missing = await runCli(['record', '--', 'provd-no-such-program'], { env, cwd: work });
    assert.equal(missing.code, 127);
    const usage = await runCli(['record', '--timeout-ms', '1.5', '--', 'true'], { env, cwd: work });
    assert.equal(usage.code, 125);
    assert.match(usage.stderr, /--timeout-ms/);
  });

  it('bounds a snapshot of cwd by files and hashed bytes, and says what the bounds cut', function () {
    for (const dir of ['a', 'a/b', 'c']) mkdirSync(join(work, dir), { recursive: true });
    for (const file of ['1', 'a/2', 'a/b/3', 'a/b/4', 'c/5']) writeFileSync(join(work, file), 'x'.repeat(10));
    const limits = { ...defaultSnapshotLimits, maxEntries: 3 };
    const partial = snapshot(work, limits);
    assert.equal(partial.entries.size, 3);
    assert.equal(partial.incomplete, 'more than 3 files under cwd');
    const whole = snapshot(work, { ...defaultSnapshotLimits, maxHashedBytes: 25 });
    assert.equal(whole.incomplete, null);
    // two files fit the 25 hashed bytes; the rest are compared by size and times
    assert.equal([...whole.entries.values()].filter((entry) => entry.hash !== null).length, 2);
    writeFileSync(join(work, 'c/5'), 'changed!!!');
    const after = snapshot(work, { ...defaultSnapshotLimits, maxHashedBytes: 25 });
    const effects = compareSnapshots(whole, after, { ...defaultSnapshotLimits, maxEffects: 0 });
    assert.deepEqual({ listed: effects.effects.length, omitted: effects.omitted }, { listed: 0, omitted: 1 });
  });

  it('claims the ids before running: an execute:false of the same tool call meanwhile answers 409, and the real command is recorded', async function () {
    const { daemon } = shared;
    const ids = { run_id: 'run-claim', tool_call_id: 'tc-claim' };
    // the ids are claimed before the command runs: once it has begun, the claim is held
    const running = record(daemon, {
      ...ids,
      command: 'sh',
      args: ['-c', 'touch began; sleep 1'],
      cwd: work,
    });
    await eventually(
      'the command to begin',
      () => existsSync(join(work, 'began')),
      (began) => began,
    );
    const racer = await record(daemon, { ...ids, command: 'true', execute: false });
    assert.equal(racer.status, 409, JSON.stringify(racer.body));
    assert.equal((racer.body['error'] as Record<string, unknown>)['code'], 'tool_call_exists');
    const ran = await running;
    assert.equal(ran.status, 200, JSON.stringify(ran.body));
    assert.deepEqual([ran.body['status'], ran.body['executed']], ['completed', true]);
    const verify = await request(daemon.url, '/v1/graph/verify?run=run-claim', { headers: auth });
    assert.equal(verify.body['status'], 'ok');
  });

  it('records a command that removes its own cwd, every file under it deleted', async function () {
    const { daemon } = shared;
    const cwd = join(work, 'gone');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'a.txt'), 'a');
    const answer = await record(daemon, { command: 'sh', args: ['-c', 'rm -rf "$PWD"'], cwd });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body['status'], 'completed');
    const effects = answer.body['file_effects'] as { path: string; effect: string }[];
    assert.deepEqual(
      effects.map((effect) => [effect.path, effect.effect]),
      [['a.txt', 'deleted']],
    );
    assert.equal(answer.body['file_effects_complete'], true);
  });

  it('snapshots a cwd where a file and a FIFO keep swapping names without hanging, the FIFO never read', async function () {
    this.timeout(60_000);
    writeFileSync(join(work, 'f'), 'regular');
    assert.equal(spawnSync('mkfifo', [join(work, 'p')]).status, 0);
    // renames swap the two names in a tight loop: a snapshot's lstat and its open see either
    const swap =
      "const { renameSync: mv } = require('fs'); process.stdout.write('swapping\\n'); " +
      "for (;;) { mv('f', 't'); mv('p', 'f'); mv('f', 'p'); mv('t', 'f'); }";
    const swapper = spawn(process.execPath, ['-e', swap], { cwd: work });
    // on the daemon's snapshot threads: a snapshot stuck opening the FIFO fails this test by its
    // deadline instead of blocking the test's own thread
    const pool = new SnapshotPool();
    try {
      await once(swapper.stdout, 'data'); // the snapshots below run while it swaps
      for (let round = 0; round < 1000; round++) {
        const stuck = new Promise<never>((_resolve, reject) => {
          setTimeout(() => reject(new Error(`snapshot ${round} did not finish in 5 s`)), 5000).unref();
        });
        const taken = await Promise.race([pool.take(work, defaultSnapshotLimits), stuck]);
        for (const [path, entry] of taken.entries) assert.equal(entry.kind, 'file', path);
      }
    } finally {
      swapper.kill('SIGKILL');
      // a reader stuck in open() is let go by a writer's open, so the pool can end
      for (const name of ['f', 'p', 't']) {
        try {
          closeSync(openSync(join(work, name), constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // not a FIFO, or no reader waiting
        }
      }
      await pool.close();
    }
  });

  it('hashes at most the bytes the bound allows of files that say size 0 and read on (procfs)', function () {
    const sleeper = spawn('sleep', ['30']);
    try {
      const taken = snapshot(`/proc/${sleeper.pid}`, { ...defaultSnapshotLimits, maxFileBytes: 4096 });
      const pagemap = taken.entries.get('pagemap');
      assert.ok(pagemap !== undefined, 'pagemap is a regular file of size 0');
      assert.equal(pagemap.size, 0);
      assert.equal(pagemap.hash, null, 'more than 4096 bytes: compared by size and times only');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it("runs commands as their cwd's owner, never root unless told: away from the key, the token and the cgroup root", async function () {
    skipWithoutCgroup(this);
    const daemon = await fixture.start({ authToken: token, recordUser: null });
    const rootOwned = await record(daemon, { command: 'id', args: ['-u'], cwd: work });
    assert.equal(rootOwned.status, 403, JSON.stringify(rootOwned.body));
    assert.match(
      String((rootOwned.body['error'] as Record<string, unknown>)['message']),
      /owned by root.*--record-user/,
    );

    chownSync(work, 65534, 65534); // nobody's
    const cgroupRootProcs = join(
      cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'))!,
      'cgroup.procs',
    );
    const tries = [
      'id -u',
      `cat ${join(daemon.dataDir, 'signing-key.pem')} || echo no-key`,
      `cat /proc/${daemon.child.pid}/environ || echo no-environ`,
      `head -c1 ${join(daemon.dataDir, 'provd.duckdb')} || echo no-db`,
      `echo $$ > ${cgroupRootProcs} || echo no-escape`,
      'touch mine && echo wrote',
      'umask', // the daemon's own (077) is not the command's
    ];
    const answer = await record(daemon, { command: 'sh', args: ['-c', tries.join('; ')], cwd: work });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body['run_as'], { uid: 65534, name: 'nobody' });
    const out = (answer.body['stdout'] as { text: string }).text.split('\n');
    const ourUmask = execFileSync('/bin/sh', ['-c', 'umask'], { encoding: 'utf8' }).trim();
    assert.deepEqual(out, ['65534', 'no-key', 'no-environ', 'no-db', 'no-escape', 'wrote', ourUmask, '']);
    assert.equal((answer.body['cgroup'] as Record<string, unknown>)['status'], 'used');
    assert.equal(answer.body['leftover_processes_killed'], 0);
  });

  it('runs commands as --record-user names, root only when it says root, and refuses a user it does not know', async function () {
    skipWithoutCgroup(this);
    for (const [user, uid] of [
      ['nobody', 65534],
      ['root', 0],
    ] as const) {
      const daemon = await fixture.start({ authToken: token, recordUser: user });
      const answer = await record(daemon, { command: 'id', args: ['-u'], cwd: work });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal((answer.body['stdout'] as { text: string }).text, `${uid}\n`);
      assert.deepEqual(answer.body['run_as'], { uid, name: user });
      await daemon.stop();
    }
    const started = await runDaemonCli(work, ['--record-user', 'provd-no-such-user']);
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, /--record-user .* names no user of \/etc\/passwd: "provd-no-such-user"/);
  });

  it('finds the cgroup2 mount of hybrid and unified hosts in mountinfo, and says when there is none', function () {
    const hybrid = [
      '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
      '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
      '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
    ].join('\n');
    const unified =
      '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate';
    assert.equal(cgroup2MountPoint(hybrid), '/sys/fs/cgroup/unified');
    assert.equal(cgroup2MountPoint(unified), '/sys/fs/cgroup');
    assert.equal(cgroup2MountPoint('41 31 0:38 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw'), '/mnt/my cg');
    assert.equal(ownCgroupPath('1:cpu:/\n0::/system.slice/provd.service\n'), '/system.slice/provd.service');
    const none = probeRecordCgroupRoot((path) =>
      path.endsWith('mountinfo') ? hybrid.split('\n')[0]! : '0::/\n',
    );
    assert.deepEqual(none, {
      status: 'unavailable',
      message: 'no cgroup2 filesystem is mounted (see /proc/self/mountinfo)',
    });
  });
});
