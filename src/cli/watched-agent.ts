/**
 * The agent `provd watch` starts, on the CLI's side: a stub (src/agents/watch/watch-stub.ts) that
 * waits until the daemon has it in the run's cgroup, then execs the agent. The stub is a plain
 * child of this process, as the user who ran `provd watch`, in its process group and on its
 * terminal (stdin, stdout, stderr inherited), so the agent is in the foreground group: the
 * terminal's Ctrl-C, Ctrl-Z and window-size changes (SIGWINCH) reach it directly, as if run by the
 * shell. SIGTERM and SIGHUP sent to `provd watch` itself are passed on; so is SIGINT when stdin is
 * not a terminal (a terminal's SIGINT reaches the whole group already: passed on, the agent would
 * see two, and Claude Code quits on a second Ctrl-C).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { stubArgv, watchNonceVariable, watchRunVariable } from '../agents/watch/watch-stub.js';

/** Variables of provd's own that hold or lead to a secret: never passed to the agent. */
const secretVariables = ['PROVD_AUTH_TOKEN', 'PROVD_AUTH_TOKEN_FILE'];

/** How the agent ended: its exit status, or the signal that ended it. */
export interface AgentExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** A stub waiting for `go`, with the agent's argv behind it. */
export class WatchedAgent {
  /** Removes the handlers passSignals installed, while they are installed. */
  private stopPassing: (() => void) | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly nonce: string,
    private readonly gate: Writable,
  ) {}

  /**
   * Spawns the stub with the caller's environment minus provd's secrets, plus `PROVD_RUN=run` (and
   * the nonce, which the stub drops before the agent runs).
   */
  static spawn(argv: readonly string[], run: string, env: NodeJS.ProcessEnv = process.env): WatchedAgent {
    const nonce = randomBytes(32).toString('hex');
    const agentEnv: NodeJS.ProcessEnv = { ...env, [watchRunVariable]: run, [watchNonceVariable]: nonce };
    for (const name of secretVariables) delete agentEnv[name];
    const child = spawn(stubArgv[0]!, [...stubArgv.slice(1), ...argv], {
      env: agentEnv,
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    });
    const gate = child.stdio[3] as Writable;
    gate.on('error', () => undefined); // the stub may be gone already
    return new WatchedAgent(child, nonce, gate);
  }

  /** The stub's pid (undefined when it could not be spawned). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Lets the stub exec the agent (it is in the cgroup, bound to the run). Signals are passed on from
   * before the stub is told: the agent can print and be signalled before this thread runs again.
   */
  go(): void {
    this.passSignals();
    this.gate.end('go\n');
  }

  /** Stops the stub before the agent runs: it exits 125 without exec'ing anything. */
  async refuse(): Promise<void> {
    this.gate.end('refused\n');
    if (this.child.exitCode === null && this.child.signalCode === null) await once(this.child, 'exit');
  }

  /** Waits for the agent to end, passing signals on meanwhile (see the file's comment). */
  async exited(): Promise<AgentExit> {
    this.passSignals();
    try {
      if (this.child.exitCode === null && this.child.signalCode === null) await once(this.child, 'exit');
    } finally {
      this.stopPassing?.();
      this.stopPassing = undefined;
    }
    return { exitCode: this.child.exitCode, signal: this.child.signalCode };
  }

  private passSignals(): void {
    if (this.stopPassing !== undefined) return;
    const passed: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];
    if (!process.stdin.isTTY) passed.push('SIGINT');
    const pass = (signal: NodeJS.Signals): void => void this.child.kill(signal);
    const ignore = (): void => undefined;
    for (const signal of passed) process.on(signal, pass);
    // the terminal's SIGINT and SIGQUIT are the agent's to act on; provd watch waits for its exit
    if (process.stdin.isTTY) for (const signal of ['SIGINT', 'SIGQUIT'] as const) process.on(signal, ignore);
    this.stopPassing = () => {
      for (const signal of passed) process.off(signal, pass);
      process.off('SIGINT', ignore);
      process.off('SIGQUIT', ignore);
    };
  }
}

/** The shell's exit status of an agent's end: its own, or 128 + the signal's number. */
export function exitStatusOf(exit: AgentExit): number {
  if (exit.signal !== null) return 128 + ((constants.signals as Record<string, number>)[exit.signal] ?? 0);
  return exit.exitCode ?? 1;
}
