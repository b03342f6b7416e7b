/**
 * What the hooks route does with a caller's verdict (hook-caller-trust.ts), before it judges or
 * stores anything:
 *
 * - `tool_call`, `unbound`: refused, 403 `forbidden` naming why, counted and logged; nothing is
 *   stored in the session's run (a forged event must not sit in the harness's context, not even
 *   labelled: readers of the chain take a tool call for the harness's word);
 * - `unknown` (no pid: the HTTP route; a caller that is gone): handled as today, stored with the
 *   verdict beside the payload when it came over the socket, and it never binds;
 * - `hook`: checked against the sensor's exec events of its path (exec-history-check.ts): a
 *   process there that exec'd anything but the hook's command lines since its fork makes it a
 *   `tool_call` (refused as above, `basis: "sensor"`); without that history the /proc verdict
 *   stands and `not_checked` says why. Then stored with the verdict; the session's first hook binds
 *   the agent process it came from (agent-binding.ts), and every later hook of the session must
 *   come from that process's tree.
 *
 * Synchronous: a PreToolUse is answered with no store round trip before it, and the first hook's
 * binding is stored behind the answer (a failure is logged and counted).
 */
import { log } from '../shared/log.js';
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';
import { classifyHookCaller, type AgentProcess, type HookCallerVerdict } from './hook-caller-trust.js';
import { checkExecHistory, type ExecCheck, type ExecHistorySource } from './exec-history-check.js';
import type { HookEvent } from './hook-event.js';
import { HookSessions } from './hook-sessions.js';
import type { StepTrace } from '../store/step-trace.js';

/**
 * Who sent a hook event: over HTTP (token checked by the server); the hook socket's peer, as the
 * kernel gave it (SO_PEERCRED); or the hook spool's owner, for an event that reached no daemon and
 * was answered by hooks.on_daemon_down at `spooled_ns` (read back at the daemon's next start: no
 * peer to place, so it is stored labelled `spool` and never binds).
 */
export type HookCaller =
  | { transport: 'http' }
  | { transport: 'socket'; pid: number; uid: number; gid: number }
  | { transport: 'spool'; uid: number; spooled_ns: string; answered: 'allow' | 'deny' };

/** The verdict as stored beside a socket caller's payload (`provd_caller`). */
export interface StoredCallerVerdict {
  trust: HookCallerVerdict['trust'];
  why: string;
  basis: HookCallerVerdict['basis'];
  pid: number;
  agent_pid: number | null;
  /** The binding the session's first hook made (`bound`), or the open one that covered its agent. */
  binding: { bound: string } | { covered_by: string } | null;
  /** What the verdict could not check. */
  not_checked: string;
}

/** Refused, or admitted with the verdict to store (null: the HTTP route, stored as before). */
export type HookAdmission = { refused: HttpReply } | { caller: StoredCallerVerdict | null };

/** What /proc cannot show, stated in every verdict the sensor's exec history did not check. */
const notCheckedProc =
  "the exec history of the processes on the caller's path (the sensor's): a tool call's shell that " +
  "exec'd the hook's own command line in place is placed as a hook without it";
/** What the exec history cannot show. */
const notCheckedSensor =
  'when a process joined the bound cgroup it is captured by: the check takes a process started after the ' +
  "cgroup's binding as captured from its fork, which one moved into it later was not";

/**
 * Binds a session's agent process to its run once (src/telemetry/agent-binder.ts): at once with the
 * binding's id and a promise of its store, or naming the open binding that covers it already.
 */
export interface AgentBinding {
  bind(
    runId: string,
    sessionId: string,
    agent: AgentProcess,
  ): { bound: string; stored: Promise<unknown> } | { covered_by: string };
}

/** Counts of what the gate refused or could not place (health's `hooks` check). */
export interface HookTrustCounts {
  refused_tool_call: number;
  refused_unbound: number;
  unverified: number;
  agent_bind_failures: number;
  /** `hook` verdicts by what the exec history said: confirmed, refused (among refused_tool_call), unchecked. */
  exec_confirmed: number;
  exec_refused: number;
  exec_unchecked: number;
  /** Among exec_unchecked: a process on the path ran before the sensor captured it (a cgroup bound while it ran). */
  exec_captured_late: number;
}

export class HookTrustGate {
  readonly sessions: HookSessions;
  readonly counts: HookTrustCounts = {
    refused_tool_call: 0,
    refused_unbound: 0,
    unverified: 0,
    agent_bind_failures: 0,
    exec_confirmed: 0,
    exec_refused: 0,
    exec_unchecked: 0,
    exec_captured_late: 0,
  };

  constructor(
    private readonly binder: AgentBinding | null,
    /** The sensor's exec history; null: every verdict rests on /proc alone. */
    readonly execs: ExecHistorySource | null = null,
    sessions = new HookSessions(),
  ) {
    this.sessions = sessions;
  }

  /**
   * Places the caller of `event` (for run `runId`) and says whether it may go on; `trace` gets
   * the /proc walk (`proc`) and the exec history's check (`execs`) as steps.
   */
  admit(caller: HookCaller, event: HookEvent, runId: string, trace?: StepTrace): HookAdmission {
    if (caller.transport !== 'socket') return { caller: null };
    const bound = this.sessions.get(event.agent, event.session_id);
    const placing = performance.now();
    const placed = classifyHookCaller(caller.pid, caller.uid, {
      agentName: event.agent,
      session: bound?.agent ?? null,
      isBoundAgent: (process) => this.sessions.isBoundAgent(process),
    });
    const checking = performance.now();
    trace?.record('proc', checking - placing);
    const check =
      placed.trust === 'hook'
        ? checkExecHistory(placed.path ?? [], event.agent, this.execs, placed.agent)
        : null;
    trace?.record('execs', performance.now() - checking);
    const verdict = checked(placed, check);
    if (check !== null) this.counts[execCounts[check.outcome]]++;
    if (check?.capturedLate === true) this.counts.exec_captured_late++;
    const notChecked =
      verdict.basis === 'sensor'
        ? notCheckedSensor
        : check === null
          ? notCheckedProc
          : `${check.why}: ${notCheckedProc}`;
    const stored = (binding: StoredCallerVerdict['binding'] = null): StoredCallerVerdict => ({
      trust: verdict.trust,
      why: verdict.why,
      basis: verdict.basis,
      pid: caller.pid,
      agent_pid: verdict.agent?.pid ?? null,
      binding,
      not_checked: notChecked,
    });
    if (verdict.trust === 'tool_call' || verdict.trust === 'unbound') {
      this.counts[`refused_${verdict.trust}`]++;
      log('warn', 'a hook caller was refused', {
        agent: event.agent,
        session_id: event.session_id,
        event: event.native_event,
        pid: caller.pid,
        trust: verdict.trust,
        why: verdict.why,
      });
      return {
        refused: errorReply('forbidden', `${event.agent} hook refused (${verdict.trust}): ${verdict.why}`),
      };
    }
    if (verdict.trust === 'unknown' || verdict.agent === null) {
      this.counts.unverified++;
      return { caller: stored() };
    }
    if (bound !== undefined) return { caller: stored() };
    const agent = verdict.agent;
    const agentBound = this.sessions.isBoundAgent(agent);
    this.sessions.set(event.agent, event.session_id, { agent, runId });
    if (agentBound || this.binder === null) return { caller: stored() };
    const binding = this.binder.bind(runId, event.session_id, agent);
    if ('stored' in binding)
      binding.stored.catch((error: unknown) => {
        this.counts.agent_bind_failures++;
        log('warn', "storing a hook session's agent binding failed", {
          agent: event.agent,
          session_id: event.session_id,
          error: String(error),
        });
      });
    return { caller: stored('stored' in binding ? { bound: binding.bound } : binding) };
  }
}

/** Which count each outcome of the exec history's check adds to. */
const execCounts = { hook: 'exec_confirmed', forged: 'exec_refused', unchecked: 'exec_unchecked' } as const;

/** The /proc verdict as the exec history leaves it: refused when forged, resting on the sensor when confirmed. */
function checked(placed: HookCallerVerdict, check: ExecCheck | null): HookCallerVerdict {
  if (check === null || check.outcome === 'unchecked') return placed;
  if (check.outcome === 'forged') return { trust: 'tool_call', why: check.why, agent: null, basis: 'sensor' };
  return { ...placed, why: `${placed.why}; ${check.why}`, basis: 'sensor' };
}

/** Health's `hooks` check: what the gate refused, could not place, or failed to bind, since the start. */
export function hookTrustCheck(gate: HookTrustGate): { status: 'ok'; [count: string]: unknown } {
  return {
    status: 'ok',
    ...gate.counts,
    sessions: gate.sessions.size,
    sessions_evicted: gate.sessions.evicted,
    // the sensor's per-process exec history the checks read: held, and evicted when full
    exec_history: gate.execs?.stats() ?? null,
  };
}
