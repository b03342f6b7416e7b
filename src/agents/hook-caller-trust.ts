/**
 * Whether a hook caller is the agent's hook or a process the model runs (issue 42 item 6). The
 * model's shell commands run as the same user as the agent's hooks and can read their argv and
 * environment, so nothing a process says about itself makes it a hook. What provd trusts is the
 * kernel's account of where the caller sits: its ancestry from /proc (each process by pid and
 * start time, read by process-ancestry.ts), compared with the agent process the session is bound
 * to. A genuine hook is the hook client, under nothing but the hook's own shell, under the agent:
 *
 *   agent -> [sh -c 'provd-hook AGENT'] -> provd-hook AGENT
 *
 * Any other process between the client and the agent is a tool call's (the Bash tool's shell), a
 * caller outside the agent's tree is not that session's hook (it double-forked, re-parented, or
 * belongs to another agent), and an agent's tool-call marker on its path (CODEX_TOOL_CALL_ID)
 * makes it a tool call's. The path is read up to the first bound agent (or to init when there is
 * none). What /proc cannot show is a process's exec history: a tool call's own
 * shell that exec's `sh -c 'provd-hook AGENT'` in place (a direct child of the agent, with the
 * hook's exact command line and a copy of its environment) looks like a hook here, and only the
 * sensor's exec events of that pid tell them apart (exec-history-check.ts, which the gate asks of
 * every `hook` verdict's path). Every verdict says what it rests on (`basis`).
 */
import { basename } from 'node:path';
import { readAncestry, type Ancestry } from './process-ancestry.js';
import type { ProcessIdentity, ProcProcess } from './proc-process.js';
import { isHookClientLine, isHookShellLine } from './hook-command-line.js';

/**
 * `hook`: placed as the session's agent's hook (or, at a session's first hook, as a hook of the
 * agent process found above it); `tool_call`: inside an agent's tool call; `unbound`: not in the
 * tree of the session's agent, nor of any process that could be one; `unknown`: not placed at all.
 */
export type HookTrust = 'hook' | 'tool_call' | 'unbound' | 'unknown';

/** An agent process by its kernel identity. */
export interface AgentProcess extends ProcessIdentity {
  uid: number;
}

/** The verdict on one caller. */
export interface HookCallerVerdict {
  trust: HookTrust;
  /** Why, naming the processes (pid and program) it rests on. */
  why: string;
  /** The agent process the hook came from (trust `hook`), else null. */
  agent: AgentProcess | null;
  /**
   * What it rests on: `proc` (ancestry, start times, markers), which cannot see a tool call that
   * exec'd the hook's command line in place (see above); `sensor`, the same and the kernel's exec
   * events of every process on the hook's path (exec-history-check.ts); `none` when nothing was
   * placed.
   */
  basis: 'proc' | 'sensor' | 'none';
  /** Trust `hook`: the hook's processes, the caller first, up to the agent (not included). */
  path?: readonly ProcProcess[];
}

/** What the daemon knows when it classifies a caller. */
export interface HookCallerContext {
  /** The agent the hook is for (the route's, and the client's argv[1]). */
  agentName: string;
  /** The agent process the session is bound to; null before its first hook with a pid. */
  session: AgentProcess | null;
  /** True when `process` is an agent process some session is bound to. */
  isBoundAgent(process: ProcessIdentity): boolean;
}

/** Classifies the socket peer `pid` (credentials `uid` from the kernel). */
export function classifyHookCaller(pid: number, uid: number, context: HookCallerContext): HookCallerVerdict {
  return classifyAncestry(
    readAncestry(pid, (process) => context.isBoundAgent(process)),
    uid,
    context,
  );
}

/** Classifies a caller from its ancestry (readAncestry). */
export function classifyAncestry(
  ancestry: Ancestry,
  uid: number,
  context: HookCallerContext,
): HookCallerVerdict {
  if ('unreadable' in ancestry)
    return { trust: 'unknown', why: ancestry.unreadable, agent: null, basis: 'none' };
  const chain = ancestry.chain;
  const caller = chain[0]!;
  if (caller.uid !== uid)
    return unknown(`${named(caller)} runs as uid ${caller.uid}, not the uid ${uid} it connected with`);
  const marked = chain.find((process) => process.toolCallMarkers.length > 0);
  if (marked !== undefined)
    return verdict(
      'tool_call',
      `${named(marked)} has ${marked.toolCallMarkers.join(', ')} in its environment`,
    );
  const bound = chain.findIndex((process) => context.isBoundAgent(process));
  if (!isHookClientLine(caller.argv, context.agentName))
    return bound > 0
      ? verdict(
          'tool_call',
          `${named(caller)} is not the hook client and runs under agent ${named(chain[bound]!)}`,
        )
      : verdict('unbound', `${named(caller)} is not the hook client and runs under no agent provd watches`);
  let at = 1;
  while (at < chain.length && isHookShellLine(chain[at]!.argv, context.agentName)) at++;
  const parent = chain[at];
  if (parent === undefined) return verdict('unbound', `${named(caller)} has no parent but hook shells`);
  const session = context.session;
  if (session !== null) {
    if (isProcess(parent, session))
      return hook(chain, at, `${named(caller)} is a hook of agent ${named(parent)}`);
    if (bound > at)
      return verdict(
        'tool_call',
        `${named(parent)} stands between the hook client and agent ${named(chain[bound]!)}`,
      );
    return verdict(
      'unbound',
      `${named(caller)} is not in the tree of the session's agent (pid ${session.pid})`,
    );
  }
  if (bound > at)
    return verdict(
      'tool_call',
      `${named(parent)} stands between the hook client and agent ${named(chain[bound]!)}`,
    );
  if (bound === at)
    return hook(chain, at, `${named(caller)} is a hook of agent ${named(parent)}, already bound`);
  if (parent.pid === 1 || parent.uid !== caller.uid || !runsAgent(parent.argv, context.agentName))
    return verdict(
      'unbound',
      `${named(caller)}'s parent ${named(parent)} is not a ${context.agentName} process`,
    );
  return hook(chain, at, `${named(caller)} is the first hook of agent ${named(parent)}`);
}

/** True when a command line runs the agent: a word among its first few names it (`claude`, `.../codex`, `node .../gemini-cli/...`). */
function runsAgent(argv: readonly string[], agentName: string): boolean {
  return argv.slice(0, 8).some((word) => word.split('/').some((part) => part.startsWith(agentName)));
}

function isProcess(process: ProcProcess, agent: ProcessIdentity): boolean {
  return process.pid === agent.pid && process.startTicks === agent.startTicks;
}

/** A process as a reason names it: pid and program. */
export function named(process: ProcProcess): string {
  return `pid ${process.pid} (${basename(process.argv[0] ?? '?')})`;
}

/** A hook of the agent at `chain[at]`, its path the processes below it. */
function hook(chain: readonly ProcProcess[], at: number, why: string): HookCallerVerdict {
  const agent = chain[at]!;
  return {
    trust: 'hook',
    why,
    agent: { pid: agent.pid, startTicks: agent.startTicks, uid: agent.uid },
    basis: 'proc',
    path: chain.slice(0, at),
  };
}

function verdict(trust: 'tool_call' | 'unbound', why: string): HookCallerVerdict {
  return { trust, why, agent: null, basis: 'proc' };
}

function unknown(why: string): HookCallerVerdict {
  return { trust: 'unknown', why, agent: null, basis: 'none' };
}
