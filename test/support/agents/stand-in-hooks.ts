/**
 * Stand-ins for an agent's hook processes, for the hook caller trust tests: the stand-in hook
 * client is node under the name `provd-hook` running a script named after the agent (`provd-hook
 * claude` runs ./claude), so its command line is exactly the hook's; it records its pid and waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecHistorySource } from '../../../src/agents/exec-history-check.js';
import type { Sensor } from '../../../src/sensor/sensor.js';
import { bootTicksNow } from '../../../src/sensor/capture-coverage.js';
import { eventually, eventuallyDefined } from '../eventually.js';

/** The stand-in hook client's script: appends its pid to $HT_OUT, then waits to be killed. */
export const standInClientSource = `require('node:fs').appendFileSync(process.env.HT_OUT, process.pid + '\\n'); setInterval(() => {}, 1000);`;

/** The pid a stand-in client (`name`, for the message) wrote to `file`, once it has. */
export function awaitStandInPid(name: string, file: string): Promise<number> {
  return eventuallyDefined(`the ${name} stand-in's pid`, () =>
    existsSync(file) && readFileSync(file, 'utf8').endsWith('\n')
      ? Number(readFileSync(file, 'utf8'))
      : undefined,
  );
}

/** Kills `pid`, gone already or not. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A command a stand-in agent starts: `shell -c cmd`, its stand-in client's pid in `<dir>/<name>.pid`. */
export interface PlannedCommand {
  name: string;
  shell: string;
  cmd: string;
  env?: Record<string, string>;
}

/**
 * The stand-in agent's script: starts each command of $HT_PLAN as the agents start hooks and tools
 * (setsid); `onGo`: only once a line comes on its stdin (after the test bound it).
 */
export function standInAgentSource(onGo: boolean): string {
  const start = `for (const { shell, cmd, env } of JSON.parse(process.env.HT_PLAN))
  spawn(shell, ['-c', cmd], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } }).unref();`;
  return `const { spawn } = require('node:child_process');
${onGo ? `process.stdin.once('data', () => {\n${start}\n});` : start}
setInterval(() => {}, 1000);`;
}

/** A stand-in agent's environment: `bin` first on the PATH, and `plan` as HT_PLAN. */
export function standInAgentEnv(
  plan: readonly PlannedCommand[],
  dir: string,
  bin: string,
): Record<string, string> {
  return {
    PATH: `${bin}:/usr/bin:/bin`,
    HT_PLAN: JSON.stringify(
      plan.map(({ name, shell, cmd, env }) => ({
        shell,
        cmd,
        env: { ...env, HT_OUT: join(dir, `${name}.pid`) },
      })),
    ),
  };
}

/** A stand-in agent started by startStandInAgent, and its stand-in clients' pids by command name. */
export interface StandInAgent {
  child: ChildProcess;
  pids: Record<string, number>;
}

/**
 * Starts `<dir>/bin/<agent> agent.js` (standInAgentSource(true)) with `plan`; `beforeGo` runs with
 * its pid before it forks anything (a test binds it there), then the agent starts each command and
 * this waits for their stand-in clients' pids.
 */
export async function startStandInAgent(
  dir: string,
  agent: string,
  plan: readonly PlannedCommand[],
  beforeGo: (pid: number) => void = () => {},
): Promise<StandInAgent> {
  const child = spawn(join(dir, 'bin', agent), ['agent.js'], {
    cwd: dir,
    env: standInAgentEnv(plan, dir, join(dir, 'bin')),
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  beforeGo(child.pid!);
  // its commands fork in a later clock tick than the binding: /proc's start times count 10 ms ticks,
  // and a process started in the binding's own tick is not taken as captured from its fork
  const bound = bootTicksNow();
  await eventually('the next clock tick', bootTicksNow, (now) => now > bound, { everyMs: 2 });
  child.stdin.write('go\n');
  const pids: Record<string, number> = {};
  for (const { name } of plan) pids[name] = await awaitStandInPid(name, join(dir, `${name}.pid`));
  return { child, pids };
}

/** `sensor`'s exec history as the hook gate reads it; `lossSeenAtMs` stands for the kernel's loss counters when given. */
export function execHistoryOf(sensor: Sensor, lossSeenAtMs?: number): ExecHistorySource {
  return {
    execsSince: (pid, startTicks) => sensor.execsSince(pid, startTicks),
    execLossSeenAtMs: () => lossSeenAtMs ?? sensor.execLossSeenAtMs(),
    stats: () => sensor.execHistoryStats(),
    capturedSince: (lineage) => sensor.capturedSince(lineage),
  };
}
