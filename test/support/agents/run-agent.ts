/**
 * runAgent: starts a real agent CLI headless against its own scripted model server, in a temporary
 * home, with the hooks a test gives, and returns its exit, its stdout events and the requests the
 * server recorded. A child that outlives its timeout is killed with its whole process tree (its group,
 * and its hooks' and tools' own sessions).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureAgent, type AgentLaunch, type HookCommands } from './agent-config.js';
import { agentCommand, agentMissing } from './installed-agents.js';
import { killTree } from './kill-tree.js';
import { ScriptedModelServer, type ToolCallTiming } from './model-server.js';
import type { AgentName, RecordedRequest, Script, ToolResult } from './script.js';

export interface RunAgentOptions {
  readonly cwd: string;
  readonly prompt: string;
  readonly script: Script;
  /** Hook commands by the agent's own event names (see preToolEvent). */
  readonly hooks?: HookCommands;
  /** Added to the child's environment (which is otherwise minimal: never the caller's own). */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /**
   * The timeout counts from when this settles instead of from the start: a test of a stuck agent
   * waits until it is stuck (its hook running), however long the agent took to get there.
   */
  readonly timeoutFrom?: Promise<unknown>;
  /**
   * Called with the agent's home once its own configuration is written, before it starts: may add
   * to what the home holds (`provd hooks install` into it) and change how the agent is started.
   */
  readonly prepare?: (home: string, launch: AgentLaunch) => Promise<AgentLaunch>;
  /** A command the agent is started through, its command line put after it (`provd watch --`). */
  readonly launcher?: readonly string[];
}

export interface AgentRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Each stdout line that parsed as JSON (the agent's stream-json / --json events). */
  readonly events: readonly unknown[];
  readonly requests: readonly RecordedRequest[];
  readonly toolResults: readonly ToolResult[];
  readonly timings: readonly ToolCallTiming[];
  /** The scripted turns the agent asked for. */
  readonly turnsTaken: number;
}

export class AgentTimeoutError extends Error {}

export async function runAgent(agent: AgentName, options: RunAgentOptions): Promise<AgentRun> {
  const missing = agentMissing(agent);
  if (missing !== undefined) throw new Error(missing);
  const server = await ScriptedModelServer.start(agent, options.script);
  const home = mkdtempSync(join(tmpdir(), `provd-agent-${agent}-`));
  try {
    const configured = configureAgent(agent, home, server.baseUrl, options.prompt, options.hooks ?? {});
    const launch = options.prepare === undefined ? configured : await options.prepare(home, configured);
    const env = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      TMPDIR: home,
      ...launch.env,
      ...options.env,
    };
    const [command, ...args] = [...(options.launcher ?? []), agentCommand(agent), ...launch.args];
    const child = spawn(command!, args, {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (closed) return; // never a timer for a child that is gone (its pid may be another's by then)
      timer = setTimeout(() => {
        timedOut = true;
        if (child.pid !== undefined) killTree(child.pid);
      }, options.timeoutMs);
    };
    if (options.timeoutFrom === undefined) arm();
    else options.timeoutFrom.then(arm, arm);
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, sig) => resolve([code, sig]));
      },
    ).finally(() => {
      closed = true;
      clearTimeout(timer);
    });
    // what the agent left running in its group goes with it
    if (child.pid !== undefined) killTree(child.pid);
    const out = Buffer.concat(stdout).toString('utf8');
    const err = Buffer.concat(stderr).toString('utf8');
    if (timedOut) {
      throw new AgentTimeoutError(
        `${agent} outlived its timeout of ${options.timeoutMs} ms and was killed with its process tree ` +
          `(${server.requests.length} model requests, ${server.turnsTaken} of ${options.script.length} turns); stderr: ${err.slice(-2000)}`,
      );
    }
    return {
      exitCode,
      signal,
      pid: child.pid ?? -1,
      stdout: out,
      stderr: err,
      events: parseJsonLines(out),
      requests: server.requests,
      toolResults: server.toolResults(),
      timings: server.timings(),
      turnsTaken: server.turnsTaken,
    };
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

function parseJsonLines(text: string): unknown[] {
  return text.split('\n').flatMap((line) => {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) return [];
    try {
      return [JSON.parse(trimmed) as unknown];
    } catch {
      return [];
    }
  });
}
