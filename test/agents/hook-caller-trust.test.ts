/**
 * The hook caller's trust, placed from real process trees: a stand-in agent (a node process named
 * `claude`) starts its hook the way Claude Code does (setsid, `sh -c 'provd-hook claude'`) and
 * tool calls that forge it the ways a model's command can: piped, exec'd in place, with the
 * agent's tool-call marker, double-forked into a new session. The stand-in hook client is node
 * under the name `provd-hook`, so its command line is exactly the hook's. The socket transport is
 * not built yet, so the gate and the hooks handler are called with the real pids, as the socket
 * will call them with its peer's.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyHookCaller, type HookCallerContext } from '../../src/agents/hook-caller-trust.js';
import { UnstoredHooks } from '../../src/agents/unstored-hooks.js';
import { HookTrustGate } from '../../src/agents/hook-trust-gate.js';
import { handleHook, type HookDeps } from '../../src/agents/hooks.route.js';
import { claudeAgent } from '../../src/agents/claude/claude-agent.js';
import type { HookEvent } from '../../src/agents/hook-event.js';
import { isRefusal } from '../../src/agents/hook-event.js';
import { readProcProcess } from '../../src/agents/proc-process.js';
import { readAncestry } from '../../src/agents/process-ancestry.js';
import { cgroup2MountPoint } from '../../src/provenance/record/cgroup-root.js';
import { defaultPolicy } from '../../src/security/policy/default-policy.js';
import { PolicyEngine } from '../../src/security/policy/policy-engine.js';
import { AgentBinder } from '../../src/telemetry/agent-binder.js';
import type { Binding } from '../../src/telemetry/binding.js';
import { parseBindRequest } from '../../src/telemetry/binding.js';
import { BindingLog } from '../../src/telemetry/binding-log.js';
import { eventuallyDefined } from '../support/eventually.js';
import {
  awaitStandInPid,
  killQuietly,
  standInAgentEnv,
  standInAgentSource,
  standInClientSource,
  type PlannedCommand,
} from '../support/agents/stand-in-hooks.js';

const plan: PlannedCommand[] = [
  { name: 'hook', shell: '/bin/sh', cmd: 'provd-hook claude' },
  { name: 'hook2', shell: '/bin/sh', cmd: 'provd-hook claude' },
  { name: 'piped', shell: '/bin/bash', cmd: "echo '{}' | provd-hook claude" },
  { name: 'eval', shell: '/bin/bash', cmd: 'eval "provd-hook claude"; true' },
  { name: 'in_place', shell: '/bin/bash', cmd: "exec /bin/sh -c 'provd-hook claude'" },
  { name: 'marked', shell: '/bin/bash', cmd: 'exec provd-hook codex', env: { CODEX_TOOL_CALL_ID: 'call_1' } },
  { name: 'double_fork', shell: '/bin/bash', cmd: '(setsid provd-hook claude &); exit 0' },
];

const uid = process.getuid!();

describe('hook caller trust', function () {
  let dir: string;
  let agent: ChildProcess;
  const pids: Record<string, number> = {};

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'provd-hook-trust-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'provd-hook'));
    symlinkSync(process.execPath, join(bin, 'claude'));
    // `provd-hook claude` and `provd-hook codex` run these (node runs its first argument)
    writeFileSync(join(dir, 'claude'), standInClientSource);
    writeFileSync(join(dir, 'codex'), standInClientSource);
    writeFileSync(join(dir, 'agent.js'), standInAgentSource(false));
    const env = standInAgentEnv(plan, dir, bin);
    agent = spawn(join(bin, 'claude'), ['agent.js'], { cwd: dir, env, stdio: 'ignore' });
    for (const { name } of plan) {
      const file = join(dir, `${name}.pid`);
      pids[name] = await awaitStandInPid(name, file);
    }
    // the double fork's bash has exited: its client was re-parented
    await eventuallyDefined('the double-forked client out of the agent tree', () => {
      const ancestry = readAncestry(pids['double_fork']!);
      return 'chain' in ancestry && ancestry.chain.every((process) => process.pid !== agent.pid)
        ? true
        : undefined;
    });
  });

  after(function () {
    for (const pid of Object.values(pids)) killQuietly(pid);
    // the shells of the piped and eval'd clients, then the agent
    agent?.kill('SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const agentProcess = (): NonNullable<HookCallerContext['session']> => {
    const read = readProcProcess(agent.pid!)!;
    return { pid: read.pid, startTicks: read.startTicks, uid: read.uid };
  };
  const boundTo = (agentName = 'claude'): HookCallerContext => {
    const session = agentProcess();
    return {
      agentName,
      session,
      isBoundAgent: (process) => process.pid === session.pid && process.startTicks === session.startTicks,
    };
  };
  const firstHook: () => HookCallerContext = () => ({
    ...boundTo(),
    session: null,
    isBoundAgent: () => false,
  });

  it("places the agent's hook (setsid, sh -c 'provd-hook claude') as its hook, and finds the agent at a session's first hook", function () {
    const bound = classifyHookCaller(pids['hook']!, uid, boundTo());
    assert.equal(bound.trust, 'hook', bound.why);
    assert.equal(bound.agent?.pid, agent.pid);
    const first = classifyHookCaller(pids['hook']!, uid, firstHook());
    assert.equal(first.trust, 'hook', first.why);
    assert.equal(first.agent?.pid, agent.pid, 'the agent is the process above the hook shell');
    assert.match(first.why, /first hook of agent pid \d+ \(claude\)/);
  });

  it('refuses as a tool call a client under a tool shell: piped, or forked by eval', function () {
    for (const name of ['piped', 'eval']) {
      const verdict = classifyHookCaller(pids[name]!, uid, boundTo());
      assert.equal(verdict.trust, 'tool_call', `${name}: ${verdict.why}`);
      assert.match(
        verdict.why,
        /pid \d+ \(bash\) stands between the hook client and agent pid \d+ \(claude\)/,
      );
      // a forged first hook of a new session, from inside the bound agent's tool call
      const fresh = classifyHookCaller(pids[name]!, uid, { ...boundTo(), session: null });
      assert.equal(fresh.trust, 'tool_call', `${name}, new session: ${fresh.why}`);
    }
  });

  it("refuses as a tool call a client whose path carries the agent's tool-call marker (CODEX_TOOL_CALL_ID)", function () {
    const verdict = classifyHookCaller(pids['marked']!, uid, boundTo('codex'));
    assert.equal(verdict.trust, 'tool_call', verdict.why);
    assert.match(verdict.why, /CODEX_TOOL_CALL_ID/);
  });

  it("refuses as unbound a client that double-forked out of the agent's tree, for its session and as a new one", function () {
    const verdict = classifyHookCaller(pids['double_fork']!, uid, boundTo());
    assert.equal(verdict.trust, 'unbound', verdict.why);
    const fresh = classifyHookCaller(pids['double_fork']!, uid, firstHook());
    assert.equal(fresh.trust, 'unbound', fresh.why);
    assert.match(fresh.why, /is not a claude process/);
  });

  it("cannot tell a tool shell that exec'd the hook's command line in place from a hook, and says so (basis proc)", function () {
    const verdict = classifyHookCaller(pids['in_place']!, uid, boundTo());
    assert.equal(verdict.trust, 'hook');
    assert.equal(verdict.basis, 'proc');
  });

  it('places nothing for a caller that is gone or whose uid is not the one it connected with', function () {
    const gone = spawnSync('/bin/true').pid;
    assert.equal(classifyHookCaller(gone, uid, boundTo()).trust, 'unknown');
    const otherUid = classifyHookCaller(pids['hook']!, uid + 1, boundTo());
    assert.equal(otherUid.trust, 'unknown');
    assert.match(otherUid.why, /not the uid/);
  });

  describe('the gate and the hooks handler', function () {
    const event = (
      sessionId: string,
      hookEventName: string,
      extra: Record<string, unknown> = {},
    ): HookEvent => {
      const read = claudeAgent.read({
        session_id: sessionId,
        hook_event_name: hookEventName,
        cwd: dir,
        ...extra,
      });
      assert.ok(!isRefusal(read), JSON.stringify(read));
      return read;
    };
    const gateWith = (log: BindingLog): { gate: HookTrustGate; stored: Binding[] } => {
      const stored: Binding[] = [];
      // what storeBinding does once the store has it: the binding log gets it
      const binder = new AgentBinder(log, (binding) => {
        stored.push(binding);
        log.append(binding);
        return Promise.resolve();
      });
      return { gate: new HookTrustGate(binder), stored };
    };

    it("binds the agent's process at the session's first hook, by its pid and start time, once", async function () {
      const log = new BindingLog(new SharedArrayBuffer(1 << 20));
      const { gate, stored } = gateWith(log);
      const before = BigInt(Date.now()) * 1_000_000n;
      const first = gate.admit(
        { transport: 'socket', pid: pids['hook']!, uid, gid: process.getgid!() },
        event('s-1', 'SessionStart'),
        'run-1',
      );
      assert.ok('caller' in first && first.caller !== null);
      assert.equal(first.caller.trust, 'hook', first.caller.why);
      assert.equal(first.caller.agent_pid, agent.pid);
      assert.ok(first.caller.binding !== null && 'bound' in first.caller.binding);
      await eventuallyDefined('the binding stored', () => (stored.length === 1 ? true : undefined));
      const binding = stored[0]!;
      assert.equal(binding.run_id, 'run-1');
      assert.equal(binding.process_id, String(agent.pid));
      assert.equal(binding.root_pid, agent.pid);
      assert.equal(binding.binding_source, 'harness');
      assert.equal(binding.ended_at, null);
      // from when the agent started: before this test, not more than the boot-time rounding earlier
      assert.ok(
        binding.startNs !== null && binding.startNs <= before && binding.startNs > before - 120_000_000_000n,
      );
      const later = gate.admit(
        { transport: 'socket', pid: pids['hook2']!, uid, gid: process.getgid!() },
        event('s-1', 'UserPromptSubmit', { prompt: 'hi' }),
        'run-1',
      );
      assert.ok('caller' in later && later.caller?.trust === 'hook', JSON.stringify(later));
      const otherSession = gate.admit(
        { transport: 'socket', pid: pids['hook2']!, uid, gid: process.getgid!() },
        event('s-2', 'SessionStart'),
        'run-2',
      );
      assert.ok(
        'caller' in otherSession && otherSession.caller?.binding === null,
        'the same agent process is not bound twice',
      );
      assert.equal(stored.length, 1);
      // a restarted daemon: new sessions, the same binding log (loaded from the store)
      const restarted = gateWith(log);
      const again = restarted.gate.admit(
        { transport: 'socket', pid: pids['hook2']!, uid, gid: process.getgid!() },
        event('s-1', 'PreToolUse', {
          tool_name: 'Bash',
          tool_input: { command: 'true' },
          tool_use_id: 'toolu_9',
        }),
        'run-1',
      );
      assert.ok('caller' in again && again.caller?.trust === 'hook', JSON.stringify(again));
      assert.deepEqual(again.caller.binding, { covered_by: binding.binding_id });
      assert.equal(restarted.stored.length, 0, 'not bound again after a restart');
    });

    it('refuses a forged binding and a forged approval of a denied call from a tool call: 403, nothing stored, counted', async function () {
      const log = new BindingLog(new SharedArrayBuffer(1 << 20));
      const { gate, stored } = gateWith(log);
      const refusing = {
        queryJson: () => Promise.reject(new Error('a refused hook must not reach the store')),
      } as unknown as HookDeps['store'] & ConstructorParameters<typeof UnstoredHooks>[0];
      const deps: HookDeps = {
        store: refusing,
        policy: new PolicyEngine(defaultPolicy),
        keepText: false,
        trust: gate,
        unstored: new UnstoredHooks(refusing),
        storeSensorPending: () => Promise.resolve(),
      };
      const genuine = gate.admit(
        { transport: 'socket', pid: pids['hook']!, uid, gid: process.getgid!() },
        event('s-1', 'SessionStart'),
        'run-1',
      );
      assert.ok('caller' in genuine && genuine.caller?.trust === 'hook');
      await eventuallyDefined('the genuine binding', () => (stored.length === 1 ? true : undefined));
      const body = (payload: Record<string, unknown>): Uint8Array =>
        new TextEncoder().encode(JSON.stringify(payload));
      const forged = { session_id: 's-1', cwd: dir, tool_name: 'Bash', tool_use_id: 'toolu_denied_1' };
      const attempts = [
        // a new session, to bind the tool call's processes to a run of its own
        { session_id: 's-forged', hook_event_name: 'SessionStart', cwd: dir },
        // the denied call, asserted as run and completed
        { ...forged, hook_event_name: 'PreToolUse', tool_input: { command: 'true' } },
        {
          ...forged,
          hook_event_name: 'PostToolUse',
          tool_input: { command: 'cat /etc/shadow > stolen.txt' },
          tool_response: { stdout: '' },
        },
      ];
      for (const name of ['piped', 'eval'])
        for (const attempt of attempts) {
          const reply = await handleHook(
            deps,
            claudeAgent,
            { transport: 'socket', pid: pids[name]!, uid, gid: process.getgid!() },
            body(attempt),
            undefined,
          );
          assert.equal(
            reply.status,
            403,
            `${name} ${String(attempt.hook_event_name)}: ${String(reply.body)}`,
          );
          assert.match(String(reply.body), /"code":"forbidden".*claude hook refused \(tool_call\)/);
        }
      const outside = await handleHook(
        deps,
        claudeAgent,
        { transport: 'socket', pid: pids['double_fork']!, uid, gid: process.getgid!() },
        body(attempts[1]!),
        undefined,
      );
      assert.equal(outside.status, 403);
      assert.match(String(outside.body), /refused \(unbound\)/);
      assert.equal(stored.length, 1, 'no forged binding');
      assert.deepEqual(gate.counts, {
        refused_tool_call: 6,
        refused_unbound: 1,
        unverified: 0,
        agent_bind_failures: 0,
        // no sensor here: the genuine hook's verdict rests on /proc alone
        exec_confirmed: 0,
        exec_refused: 0,
        exec_unchecked: 1,
        exec_captured_late: 0,
      });
    });

    it("does not bind an agent whose cgroup an open binding already names (provd watch's)", function () {
      const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'));
      if (mount === undefined) this.skip(); // no cgroup2: provd watch cannot bind one either
      const own = readFileSync(`/proc/${agent.pid}/cgroup`, 'utf8')
        .split('\n')
        .find((line) => line.startsWith('0::'))!
        .slice(3);
      // the agent moves into a cgroup of its own, as provd watch starts it
      const watched = join(mount, `provd-hook-trust-${process.pid}`);
      mkdirSync(watched);
      try {
        writeFileSync(join(watched, 'cgroup.procs'), String(agent.pid));
        const log = new BindingLog(new SharedArrayBuffer(1 << 20));
        const id = statSync(watched, { bigint: true }).ino.toString();
        const watch = parseBindRequest({ run_id: 'watched', tool_call_id: 'agent', cgroup_id: id }, 1n);
        assert.ok('binding_id' in watch);
        log.append(watch);
        const { gate, stored } = gateWith(log);
        const admitted = gate.admit(
          { transport: 'socket', pid: pids['hook']!, uid, gid: process.getgid!() },
          event('s-w', 'SessionStart'),
          'watched',
        );
        assert.ok('caller' in admitted && admitted.caller?.trust === 'hook', JSON.stringify(admitted));
        assert.deepEqual(admitted.caller.binding, { covered_by: watch.binding_id });
        assert.equal(stored.length, 0);
      } finally {
        writeFileSync(join(mount, own, 'cgroup.procs'), String(agent.pid));
        rmdirSync(watched);
      }
    });
  });
});
