/**
 * The agent process each hook session is bound to, on the main thread: set at the session's first
 * hook that came with a pid (hook-trust-gate.ts), read by every later hook of the session, which
 * must come from that process's tree. Bounded: at the cap, sessions whose agent has exited go
 * first, then the oldest, and each eviction is counted (an evicted session's next hook is placed
 * as a first hook again, against the agents still bound).
 */
import { isSameProcess, type ProcessIdentity } from './proc-process.js';
import type { AgentProcess } from './hook-caller-trust.js';

/** A session's agent process and the run its events go to. */
export interface BoundSession {
  agent: AgentProcess;
  runId: string;
}

/** Sessions held before one is evicted. */
export const defaultMaxSessions = 10_000;

export class HookSessions {
  private readonly sessions = new Map<string, BoundSession>();
  /** Bound agent processes (`pid:startTicks`) and how many sessions name each. */
  private readonly agents = new Map<string, number>();
  /** Sessions evicted at the cap while their agent still ran. */
  evicted = 0;

  constructor(private readonly maxSessions = defaultMaxSessions) {}

  /** The session's bound agent, if any. */
  get(agentName: string, sessionId: string): BoundSession | undefined {
    return this.sessions.get(sessionKey(agentName, sessionId));
  }

  /** True when some session is bound to this process. */
  isBoundAgent(process: ProcessIdentity): boolean {
    return this.agents.has(agentKey(process));
  }

  /** Binds a session to its agent process. */
  set(agentName: string, sessionId: string, session: BoundSession): void {
    const key = sessionKey(agentName, sessionId);
    if (this.sessions.has(key)) return;
    if (this.sessions.size >= this.maxSessions) this.makeRoom();
    this.sessions.set(key, session);
    this.agents.set(agentKey(session.agent), (this.agents.get(agentKey(session.agent)) ?? 0) + 1);
  }

  /** How many sessions are bound. */
  get size(): number {
    return this.sessions.size;
  }

  private makeRoom(): void {
    for (const [key, session] of this.sessions) if (!isSameProcess(session.agent)) this.delete(key, session);
    if (this.sessions.size < this.maxSessions) return;
    const [key, session] = this.sessions.entries().next().value as [string, BoundSession];
    this.delete(key, session);
    this.evicted++;
  }

  private delete(key: string, session: BoundSession): void {
    this.sessions.delete(key);
    const agent = agentKey(session.agent);
    const left = (this.agents.get(agent) ?? 1) - 1;
    if (left === 0) this.agents.delete(agent);
    else this.agents.set(agent, left);
  }
}

function sessionKey(agentName: string, sessionId: string): string {
  return `${agentName}\0${sessionId}`;
}

function agentKey(process: ProcessIdentity): string {
  return `${process.pid}:${process.startTicks}`;
}
