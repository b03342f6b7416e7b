// run-suites: capture agents only (its sensor captures the stand-in agents it binds, nothing else)
/**
 * A tool call that exec's the hook's command line in place, caught by the sensor's exec events
 * (exec-history-check.ts): real processes under a stand-in agent bound in the kernel's capture
 * filter (--capture agents, the default), the real sensor, the gate called with the real pids as
 * the hook socket calls it with its peer's. /proc places these forgeries as hooks
 * (hook-caller-trust.test.ts); only their exec history tells them apart.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeAgent } from '../../src/agents/claude/claude-agent.js';
import { codexAgent } from '../../src/agents/codex/codex-agent.js';
import type { AgentHarness, HookEvent } from '../../src/agents/hook-event.js';
import { isRefusal } from '../../src/agents/hook-event.js';
import { HookTrustGate, type HookAdmission } from '../../src/agents/hook-trust-gate.js';
import { loadSensorAddon } from '../../src/sensor/binding.js';
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

/** Claude Code: hooks through dash, tool calls through bash; the forgery exec's the hook's line in place. */
const claudePlan: PlannedCommand[] = [
  { name: 'claude_hook', shell: '/bin/sh', cmd: 'provd-hook claude' },
  { name: 'claude_in_place', shell: '/bin/bash', cmd: "exec /bin/sh -c 'provd-hook claude'" },
];
/** Codex: bash execs a simple command in place, the hook's and the tool call's; the forgery drops the marker. */
const codexPlan: PlannedCommand[] = [
  { name: 'codex_hook', shell: '/bin/bash', cmd: 'provd-hook codex' },
  {
    name: 'codex_env_u',
    shell: '/bin/bash',
    cmd: 'env -u CODEX_TOOL_CALL_ID provd-hook codex',
    env: { CODEX_TOOL_CALL_ID: 'call_1' },
  },
];

const uid = process.getuid?.() ?? -1;

describe('hook caller trust: the sensor sees an exec in place', function () {
  let dir: string;
  let sensor: Sensor;
  const agents: ChildProcess[] = [];
  const pids: Record<string, number> = {};
  const log = new BindingLog(new SharedArrayBuffer(1 << 20));

  /** Starts a stand-in agent named `agent`, bound (when `bind`) before it forks anything, and waits for its hooks' pids. */
  async function startAgent(
    agent: string,
    plan: readonly PlannedCommand[],
    bind: boolean,
  ): Promise<ChildProcess> {
    const started = await startStandInAgent(dir, agent, plan, (pid) => {
      if (!bind) return;
      const binding = parseBindRequest(
        { run_id: `run-${agent}`, tool_call_id: 'agent', root_pid: pid, binding_source: 'harness' },
        BigInt(Date.now()) * 1_000_000n,
      );
      if (!('binding_id' in binding)) assert.fail(binding.message);
      log.append(binding); // the sensor puts its pid in the kernel's filter at once
    });
    agents.push(started.child);
    Object.assign(pids, started.pids);
    return started.child;
  }

  before(async function () {
    const why =
      sensorUnavailable() ??
      ('unavailable' in loadSensorAddon() ? 'the sensor addon is not built' : undefined);
    if (why !== undefined) {
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'provd-exec-forgery-'));
    mkdirSync(join(dir, 'bin'));
    for (const name of ['provd-hook', 'claude', 'codex', 'claude-unwatched'])
      symlinkSync(process.execPath, join(dir, 'bin', name));
    // `provd-hook AGENT` runs ./AGENT with node
    writeFileSync(join(dir, 'claude'), standInClientSource);
    writeFileSync(join(dir, 'codex'), standInClientSource);
    writeFileSync(join(dir, 'agent.js'), standInAgentSource(true));
    sensor = await Sensor.start(
      { ingestSensorBatch: () => Promise.resolve() },
      { stallMs: 0 },
      'agents',
      log,
    );
    assert.equal(sensor.report().status, 'running', JSON.stringify(sensor.report()));
    await startAgent('claude', claudePlan, true);
    await startAgent('codex', codexPlan, true);
  });

  after(async function () {
    for (const pid of Object.values(pids)) killQuietly(pid);
    for (const agent of agents) agent.kill('SIGKILL');
    await sensor?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const event = (harness: AgentHarness, sessionId: string): HookEvent => {
    const read = harness.read({ session_id: sessionId, hook_event_name: 'SessionStart', cwd: dir });
    assert.ok(!isRefusal(read), JSON.stringify(read));
    return read;
  };
  /** A gate reading the sensor's exec history; `lossSeenAtMs` stands for the kernel's loss counters when given. */
  const gate = (lossSeenAtMs?: number): HookTrustGate =>
    new HookTrustGate(null, execHistoryOf(sensor, lossSeenAtMs));
  const admit = (on: HookTrustGate, harness: AgentHarness, name: string, session: string): HookAdmission =>
    on.admit(
      { transport: 'socket', pid: pids[name]!, uid, gid: process.getgid!() },
      event(harness, session),
      session,
    );

  it("admits each agent's genuine hook on the sensor's word: its processes exec'd only the hook's command lines", function () {
    const on = gate();
    for (const [harness, name] of [
      [claudeAgent, 'claude_hook'],
      [codexAgent, 'codex_hook'],
    ] as const) {
      const admitted = admit(on, harness, name, `s-${name}`);
      assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
      assert.equal(admitted.caller.trust, 'hook', admitted.caller.why);
      assert.equal(admitted.caller.basis, 'sensor', admitted.caller.why);
      assert.match(admitted.caller.why, /exec only the hook's command lines since their fork/);
      assert.match(admitted.caller.not_checked, /^when a process joined the bound cgroup it is captured by/);
    }
    assert.equal(on.counts.exec_confirmed, 2);
  });

  it("refuses a tool call's shell that exec'd the hook's command line in place (Claude), naming the exec", function () {
    const on = gate();
    const refused = admit(on, claudeAgent, 'claude_in_place', 's-forged');
    assert.ok('refused' in refused, JSON.stringify(refused));
    assert.equal(refused.refused.status, 403);
    assert.match(
      String(refused.refused.body),
      /claude hook refused \(tool_call\): pid \d+ \(sh\) exec'd \\"\/bin\/bash -c exec \/bin\/sh -c 'provd-hook claude'\\" at 20\d\d-.*since its fork/,
    );
    assert.deepEqual([on.counts.refused_tool_call, on.counts.exec_refused], [1, 1]);
  });

  it('refuses a Codex tool call that drops its marker and execs the hook client in place (env -u CODEX_TOOL_CALL_ID)', function () {
    const on = gate();
    const refused = admit(on, codexAgent, 'codex_env_u', 's-forged');
    assert.ok('refused' in refused, JSON.stringify(refused));
    assert.match(
      String(refused.refused.body),
      /codex hook refused \(tool_call\): pid \d+ \(provd-hook\) exec'd \\"\/bin\/bash -c env -u/,
    );
  });

  it('rests a clean history on /proc alone when the kernel dropped exec events since the processes started; a seen exec still refuses', function () {
    const lossy = gate(Date.now());
    const admitted = admit(lossy, claudeAgent, 'claude_hook', 's-lossy');
    assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
    assert.deepEqual([admitted.caller.trust, admitted.caller.basis], ['hook', 'proc']);
    assert.match(admitted.caller.not_checked, /^the kernel dropped exec events/);
    // the dropped exec could have been a tool shell's; one that was seen is decisive all the same
    assert.ok('refused' in admit(lossy, claudeAgent, 'claude_in_place', 's-lossy-forged'));
    // a loss dated before the hook's processes started leaves the check standing
    const earlier = admit(gate(Date.now() - 3_600_000), claudeAgent, 'claude_hook', 's-old-loss');
    assert.ok('caller' in earlier && earlier.caller?.basis === 'sensor', JSON.stringify(earlier));
  });

  it('keeps the /proc verdict, saying why, for a hook of an agent the sensor did not capture', async function () {
    await startAgent(
      'claude-unwatched',
      [{ name: 'uncaptured_in_place', shell: '/bin/bash', cmd: "exec /bin/sh -c 'provd-hook claude'" }],
      false,
    );
    const on = gate();
    const admitted = admit(on, claudeAgent, 'uncaptured_in_place', 's-uncaptured');
    assert.ok('caller' in admitted && admitted.caller !== null, JSON.stringify(admitted));
    assert.equal(admitted.caller.trust, 'hook');
    assert.equal(admitted.caller.basis, 'proc');
    assert.match(
      admitted.caller.not_checked,
      /the sensor holds no exec of pid \d+ \(provd-hook\) since its fork/,
    );
    assert.equal(on.counts.exec_unchecked, 1);
  });
});
