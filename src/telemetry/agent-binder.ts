/**
 * Binds an agent process to its session's run at the session's first hook (issue 42 item 5: hooks
 * alone bind the agent's process), by the kernel's facts: the pid the hook's ancestry led to, from
 * the moment that process started (its /proc start time), as `process_id` (its own events, tier
 * `process`) and `root_pid` (the kernel's capture filter then follows the processes it forks), with
 * binding_source `harness`. An agent already covered by an open binding (`provd watch` bound its
 * cgroup to the run; `provd record` ran it in a cgroup of its own) is not bound twice; nor is a
 * process an earlier session bound (hook-sessions.ts; after a restart, its binding here).
 */
import { readFileSync } from 'node:fs';
import { processCgroupChain } from '../provenance/record/cgroup-root.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { Binding } from './binding.js';
import { isBindRequestError, parseBindRequest } from './binding.js';
import type { BindingLog } from './binding-log.js';

/** USER_HZ: /proc's clock ticks per second, 100 on every Linux ABI. */
const ticksPerSecond = 100n;
const nanosPerSecond = 1_000_000_000n;

/** Stores a binding (the store and the workers' binding log: bind.route.ts storeBinding). */
export type StoreBinding = (binding: Binding) => Promise<unknown>;

/**
 * What binding an agent did: bound now (the binding's id; `stored` settles once the store and the
 * workers have it), or covered already (by which binding).
 */
export type AgentBindingResult = { bound: string; stored: Promise<unknown> } | { covered_by: string };

/** Binds agent processes once; knows every open binding's cgroup and pids from the binding log. */
export class AgentBinder {
  /** Open bindings by cgroup id (decimal) or path as bound. */
  private readonly byCgroup = new Map<string, string>();
  /** Agent bindings made here (`pid@start ns`): a process's start never changes, so a restarted daemon finds them. */
  private readonly byAgent = new Map<string, string>();

  constructor(
    bindingLog: BindingLog,
    private readonly store: StoreBinding,
  ) {
    const add = (binding: Binding): void => this.index(binding);
    bindingLog.readAll(add);
    bindingLog.onAppend(add);
  }

  /** Binds `agent` to `runId` for session `sessionId`, unless an open binding covers it already. */
  bind(runId: string, sessionId: string, agent: { pid: number; startTicks: bigint }): AgentBindingResult {
    const startNs = processStartNs(agent.startTicks);
    const covering = this.byAgent.get(`${agent.pid}@${startNs}`) ?? this.coveringBinding(agent.pid);
    if (covering !== undefined) return { covered_by: covering };
    const binding = parseBindRequest(
      {
        run_id: runId,
        tool_call_id: sessionId,
        session_id: sessionId,
        process_id: String(agent.pid),
        root_pid: agent.pid,
        started_at: formatRfc3339Nanos(startNs),
        binding_source: 'harness',
      },
      BigInt(Date.now()) * 1_000_000n,
    );
    if (isBindRequestError(binding))
      return { bound: '', stored: Promise.reject(new Error(`agent binding refused: ${binding.message}`)) };
    return { bound: binding.binding_id, stored: this.store(binding) };
  }

  private index(binding: Binding): void {
    if (binding.endNs !== null) return;
    if (binding.cgroup_id !== null)
      this.byCgroup.set(binding.cgroup_id.replace(/^\/+/, ''), binding.binding_id);
    if (binding.binding_source === 'harness' && binding.process_id !== null && binding.startNs !== null)
      this.byAgent.set(`${binding.process_id}@${binding.startNs}`, binding.binding_id);
  }

  /**
   * The open binding whose cgroup holds the process (its own or an ancestor cgroup). A pid binding
   * without the process's start is not asked: an open one may name a pid since reused.
   */
  private coveringBinding(pid: number): string | undefined {
    for (const key of processCgroupKeys(pid)) {
      const binding = this.byCgroup.get(key);
      if (binding !== undefined) return binding;
    }
    return undefined;
  }
}

/** When a process started, Unix ns, from its start ticks and the boot time (/proc/stat btime, whole seconds). */
export function processStartNs(startTicks: bigint): bigint {
  const btime = /\nbtime (\d+)/.exec(readFileSync('/proc/stat', 'latin1'))?.[1] ?? '0';
  // btime is truncated to the second: one second earlier never starts the binding after the process
  return (BigInt(btime) - 1n) * nanosPerSecond + (startTicks * nanosPerSecond) / ticksPerSecond;
}

/** The process's cgroup and each cgroup above it, as paths below the mount and as decimal ids. */
function processCgroupKeys(pid: number): string[] {
  return processCgroupChain(pid).flatMap(({ path, id }) => (id === null ? [path] : [path, id]));
}
