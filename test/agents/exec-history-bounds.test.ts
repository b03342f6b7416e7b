/**
 * The exec history's bounds, met by real processes under the real sensor (exec-history-check.ts,
 * native/src/exec-history.h): a process's 9th exec drops its oldest, a command line past the 512
 * bytes kept is cut, a full table evicts its stalest process, and a cgroup bound while its
 * processes ran was not captured from their fork. Each is what a forger would reach for to have a
 * tool call's process confirmed as a hook. The table holds 64 processes here (the sensor's
 * `execHistoryPids`, 16,384 by default) so that a test can fill it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeAgent } from '../../src/agents/claude/claude-agent.js';
import { isRefusal } from '../../src/agents/hook-event.js';
import { HookTrustGate, hookTrustCheck, type HookAdmission } from '../../src/agents/hook-trust-gate.js';
import { cgroup2MountPoint } from '../../src/provenance/record/cgroup-root.js';
import { CommandCgroup } from '../../src/provenance/record/command-cgroup.js';
import { loadSensorAddon } from '../../src/sensor/binding.js';
import { bootTicksNow } from '../../src/sensor/capture-coverage.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { Sensor } from '../../src/sensor/sensor.js';
import { parseBindRequest } from '../../src/telemetry/binding.js';
import { BindingLog } from '../../src/telemetry/binding-log.js';
import {
  execHistoryOf,
  killQuietly,
  standInAgentSource,
  standInClientSource,
  startStandInAgent,
  type PlannedCommand,
} from '../support/agents/stand-in-hooks.js';
import { eventually } from '../support/eventually.js';
import { removeTestCgroup } from '../support/record-cgroup.js';

/** Processes the exec history holds in this test. */
const tablePids = 64;
/** The stand-in client as a bash script (`provd-hook` is bash here): exec's itself $HT_LEFT more times first. */
const reExecClientSource = `if [ "\${HT_LEFT:-0}" -gt 0 ]; then HT_LEFT=$((HT_LEFT - 1)) exec provd-hook claude; fi
echo $$ >> "$HT_OUT"
while :; do sleep 1; done
`;

const uid = process.getuid?.() ?? -1;

describe('hook caller trust: the exec history at its bounds', function () {
  let dir: string;
  let bashDir: string;
  let sensor: Sensor;
  const children: ChildProcess[] = [];
  const pids: Record<string, number> = {};
  const log = new BindingLog(new SharedArrayBuffer(1 << 20));

  /** Appends a binding to the log the sensor follows: the kernel's filter takes it at once. */
  const bind = (body: Record<string, unknown>): void => {
    const binding = parseBindRequest(
      { run_id: 'run-bounds', tool_call_id: 'agent', binding_source: 'harness', ...body },
      BigInt(Date.now()) * 1_000_000n,
    );
    if (!('binding_id' in binding)) assert.fail(binding.message);
    log.append(binding);
  };

  /** A stand-in claude in `at`, bound by its pid before it forks when `bound`. */
  async function startAgent(
    at: string,
    plan: readonly PlannedCommand[],
    bound = true,
  ): Promise<ChildProcess> {
    const started = await startStandInAgent(at, 'claude', plan, (pid) => {
      if (bound) bind({ root_pid: pid });
    });
    children.push(started.child);
    Object.assign(pids, started.pids);
    return started.child;
  }

  /** A stand-in directory: bin/claude is node, bin/provd-hook is `hookBinary` running ./claude. */
  const standInDir = (prefix: string, hookBinary: string, client: string): string => {
    const at = mkdtempSync(join(tmpdir(), prefix));
    mkdirSync(join(at, 'bin'));
    symlinkSync(process.execPath, join(at, 'bin', 'claude'));
    symlinkSync(hookBinary, join(at, 'bin', 'provd-hook'));
    writeFileSync(join(at, 'claude'), client);
    writeFileSync(join(at, 'agent.js'), standInAgentSource(true));
    return at;
  };

  before(async function () {
    const why =
      sensorUnavailable() ??
      ('unavailable' in loadSensorAddon() ? 'the sensor addon is not built' : undefined);
    if (why !== undefined) {
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    }
    dir = standInDir('provd-exec-bounds-', process.execPath, standInClientSource);
    bashDir = standInDir('provd-exec-bounds-bash-', '/bin/bash', reExecClientSource);
    sensor = await Sensor.start(
      { ingestSensorBatch: () => Promise.resolve() },
      { stallMs: 0, execHistoryPids: tablePids },
      'agents',
      log,
    );
    assert.equal(sensor.report().status, 'running', JSON.stringify(sensor.report()));
  });

  after(async function () {
    for (const pid of Object.values(pids)) killQuietly(pid);
    for (const child of children) {
      if (child.pid !== undefined) killQuietly(-child.pid); // a flood's group
      child.kill('SIGKILL');
    }
    await sensor?.stop();
    for (const at of [dir, bashDir]) if (at !== undefined) rmSync(at, { recursive: true, force: true });
  });

  const gate = (): HookTrustGate => new HookTrustGate(null, execHistoryOf(sensor));
  const admit = (on: HookTrustGate, name: string): HookAdmission => {
    const event = claudeAgent.read({ session_id: `s-${name}`, hook_event_name: 'SessionStart', cwd: dir });
    assert.ok(!isRefusal(event), JSON.stringify(event));
    return on.admit(
      { transport: 'socket', pid: pids[name]!, uid, gid: process.getgid!() },
      event,
      `s-${name}`,
    );
  };
  const refusal = (admitted: HookAdmission): string => {
    assert.ok('refused' in admitted, JSON.stringify(admitted));
    assert.equal(admitted.refused.status, 403);
    return String(admitted.refused.body);
  };

  it("refuses a tool call's shell whose 9th and later execs pushed its first out, on a later exec it kept", async function () {
    // bash (the tool's), then env nine times, then sh and the client: 12 execs, the last 8 kept
    await startAgent(dir, [
      {
        name: 'env_chain',
        shell: '/bin/bash',
        cmd: `exec ${'env '.repeat(9)}/bin/sh -c 'provd-hook claude'`,
      },
    ]);
    const body = refusal(admit(gate(), 'env_chain'));
    assert.match(
      body,
      /claude hook refused \(tool_call\): pid \d+ \(\S+\) exec'd \\"env (env )*\/bin\/sh -c provd-hook claude\\" at 20\d\d-/,
    );
    assert.doesNotMatch(body, /bash/); // the tool's own exec was dropped: the refusal rests on what was kept
  });

  it("refuses a process that exec'd the hook's command line more often than a hook ever does, its first exec dropped", async function () {
    // bash (the tool's), then `provd-hook claude` ten times: every kept exec is the hook's own line
    await startAgent(bashDir, [
      { name: 're_exec', shell: '/bin/bash', cmd: 'exec provd-hook claude', env: { HT_LEFT: '9' } },
    ]);
    const on = gate();
    const body = refusal(admit(on, 're_exec'));
    assert.match(body, /pid \d+ \(provd-hook\) exec'd more than a hook's process ever does/);
    assert.equal(on.counts.exec_refused, 1);
  });

  it('refuses a hook command line longer than the 512 bytes the sensor keeps as truncated, never confirmed on its prefix', async function () {
    // the hook's shape (`provd-hook claude --socket PATH`), whole up to its last word but for the cut
    const socket = `/run/${'s'.repeat(600)}`;
    await startAgent(dir, [
      { name: 'long_line', shell: '/bin/sh', cmd: `provd-hook claude --socket ${socket}` },
    ]);
    const body = refusal(admit(gate(), 'long_line'));
    assert.match(
      body,
      /exec'd \\"(\/bin\/sh -c )?provd-hook claude --socket \/run\/s+\.\.\.\\" at 20\d\d-\S+ since its fork, truncated \(a command line past the 512 bytes the sensor keeps/,
    );
  });

  /**
   * A stand-in tool shell `name` that runs (for a clock tick at least) before `bindLate` binds it, then exec's the hook's line in
   * place (its client forked in a later clock tick than the binding, so captured from its fork), and
   * the gate's verdict on that client: its history holds only the hook's command lines (sh, then the
   * client), the tool's bash -c having come before the binding.
   */
  async function forgeAfterLateBinding(
    name: string,
    bindLate: (agentPid: number, shellPid: number) => void,
  ): Promise<{ shellPid: number; admitted: HookAdmission; on: HookTrustGate }> {
    const go = join(dir, `${name}.go`);
    const agent = await startStandInAgent(dir, 'claude', [
      {
        name,
        shell: '/bin/bash',
        cmd: `echo $$ >> "$HT_OUT"; while [ ! -e ${go} ]; do sleep 0.05; done; exec /bin/sh -c 'provd-hook claude'`,
      },
    ]);
    children.push(agent.child);
    const shellPid = agent.pids[name]!;
    // the shell started before its pid was read: bound a tick later, it ran a whole tick uncaptured
    // (bound in its own start's tick, the gate says that instead, as a shell of unknown age)
    const seenAt = bootTicksNow();
    await eventually('the tick after the shell started', bootTicksNow, (now) => now > seenAt, { everyMs: 2 });
    bindLate(agent.child.pid!, shellPid);
    rmSync(join(dir, `${name}.pid`));
    const boundAt = bootTicksNow();
    await eventually('the next clock tick', bootTicksNow, (now) => now > boundAt, { everyMs: 2 });
    writeFileSync(go, '');
    // the shell (now the hook's sh) forks the client, which writes its pid
    pids[name] = await eventually(
      'the late-bound shell to start its client',
      () =>
        existsSync(join(dir, `${name}.pid`)) ? Number(readFileSync(join(dir, `${name}.pid`), 'utf8')) : 0,
      (pid) => pid > 0,
    );
    const on = gate();
    return { shellPid, admitted: admit(on, name), on };
  }

  /** The verdict stays /proc's, naming the shell that ran before its capture, and health counts it. */
  function assertNotConfirmed({
    shellPid,
    admitted,
    on,
  }: Awaited<ReturnType<typeof forgeAfterLateBinding>>): void {
    assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
    assert.deepEqual([admitted.caller.trust, admitted.caller.basis], ['hook', 'proc']);
    assert.match(
      admitted.caller.not_checked,
      new RegExp(
        `^pid ${shellPid} \\(sh\\) ran \\d+\\.\\d\\d s before the sensor captured it \\(a binding made while it ran`,
      ),
    );
    // the client, forked by that shell after the binding, was captured from its fork: only the shell is named
    assert.doesNotMatch(admitted.caller.not_checked, /provd-hook\) ran/);
    const health = hookTrustCheck(on);
    assert.deepEqual(
      [health['exec_confirmed'], health['exec_unchecked'], health['exec_captured_late']],
      [0, 1, 1],
    );
  }

  it('does not confirm a forgery from a tool shell bound by its pid while it ran: its first exec came before its capture', async function () {
    assertNotConfirmed(await forgeAfterLateBinding('late_pid', (_, shellPid) => bind({ pid: shellPid })));
  });

  it("does not confirm a forgery from a cgroup bound while its tool shell ran: the shell's first exec came before its capture", async function () {
    const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'));
    if (mount === undefined) this.skip(); // no cgroup2: no cgroup to bind
    const cgroup = await CommandCgroup.create(mount, 'exec-bounds');
    try {
      const forged = await forgeAfterLateBinding('late_bound', (agentPid, shellPid) => {
        for (const pid of [agentPid, shellPid]) writeFileSync(join(cgroup.path, 'cgroup.procs'), String(pid));
        bind({ cgroup_id: cgroup.id });
      });
      assertNotConfirmed(forged);
    } finally {
      // every process in it is this test's: the agent, its shell or client, a sleep of its loop
      await removeTestCgroup(cgroup);
    }
  });

  it('confirms a genuine hook of an agent no binding names under --capture host, which captures every process from its start', async function () {
    const host = await Sensor.start(
      { ingestSensorBatch: () => Promise.resolve() },
      { stallMs: 0, execHistoryPids: tablePids },
      'host',
    );
    try {
      assert.equal(host.report().status, 'running', JSON.stringify(host.report()));
      await startAgent(dir, [{ name: 'host_genuine', shell: '/bin/sh', cmd: 'provd-hook claude' }], false);
      const on = new HookTrustGate(null, execHistoryOf(host));
      const admitted = admit(on, 'host_genuine');
      assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
      assert.deepEqual([admitted.caller.trust, admitted.caller.basis], ['hook', 'sensor']);
      assert.equal(on.counts.exec_confirmed, 1);
    } finally {
      await host.stop();
    }
  });

  it("evicts the stalest process when the table is full, counted in health's hooks check; a hook evicted says so, on /proc alone", async function () {
    // a genuine hook first, checked while its entry is held
    await startAgent(dir, [{ name: 'genuine', shell: '/bin/sh', cmd: 'provd-hook claude' }]);
    const confirmed = admit(gate(), 'genuine');
    assert.ok('caller' in confirmed && confirmed.caller?.basis === 'sensor', JSON.stringify(confirmed));
    // then more live, exec'd processes than the table holds, each newer than the hook's
    const flood = spawn(
      '/bin/bash',
      ['-c', `read; for i in $(seq ${tablePids + 16}); do sleep 600 & done; wait`],
      {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    children.push(flood);
    bind({ root_pid: flood.pid! });
    flood.stdin.write('go\n');
    // the hook's entry goes once the table is full of newer ones (a lookup reads the rings first)
    await eventually(
      "the hook's entry evicted",
      () => sensor.execsSince(pids['genuine']!, 0n)!.execs.length,
      (held) => held === 0,
    );
    const stats = sensor.execHistoryStats()!;
    assert.ok(stats.evicted > 0 && stats.processes <= tablePids, JSON.stringify(stats));
    const on = gate();
    const admitted = admit(on, 'genuine');
    assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
    assert.deepEqual([admitted.caller.trust, admitted.caller.basis], ['hook', 'proc']);
    assert.match(
      admitted.caller.not_checked,
      /^the exec history was full and evicted processes since the hook started/,
    );
    const health = hookTrustCheck(on);
    assert.equal(health['exec_unchecked'], 1);
    assert.ok(
      (health['exec_history'] as { evicted: number }).evicted >= stats.evicted,
      JSON.stringify(health),
    );
  });
});
