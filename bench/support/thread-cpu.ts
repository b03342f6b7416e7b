/**
 * CPU percent of one core that a process used over a phase (utime + stime of all its threads, from
 * /proc/<pid>/stat), with the threads that took most of it by name (a thread's name is its comm:
 * `node`, `libuv-worker`, or what a native library named it). Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readCpuSeconds } from './process-meter.js';

const userHz = 100;

/**
 * CPU ticks per thread of `pid`, by `name/tid`, the name its role in `roles` (by TID) where known,
 * else its comm (Node names most of its threads `node`).
 */
function threadTicks(pid: number, roles: ReadonlyMap<number, string>): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = roles.get(Number(tid)) ?? stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(`${name}/${tid}`, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ticks;
}

/** What `meterThreads` reports: CPU percent of one core, and the busiest threads' percents by name. */
export interface ThreadCpu {
  cpu_percent: number;
  threads: Record<string, number>;
}

/**
 * Starts metering `pid`'s threads; the returned function reads the phase (its length measured, so
 * a late timer on a loaded host does not inflate the percent) with the `top` busiest threads, named
 * by `roles` (TID to role: bench/support/ingest-profile.ts threadRoles) where known.
 */
export function meterThreads(
  pid: number,
  top = 6,
  roles: ReadonlyMap<number, string> = new Map(),
): () => ThreadCpu {
  const before = threadTicks(pid, roles);
  const cpuBefore = readCpuSeconds(pid)!;
  const startedMs = performance.now();
  return () => {
    const seconds = (performance.now() - startedMs) / 1000;
    const cpu = readCpuSeconds(pid)! - cpuBefore;
    const used = [...threadTicks(pid, roles)].map(
      ([name, ticks]) => [name, ticks - (before.get(name) ?? 0)] as const,
    );
    const threads: Record<string, number> = {};
    for (const [name, ticks] of used.sort((a, b) => b[1] - a[1]).slice(0, top))
      if (ticks > 0) threads[name] = Number(((ticks / userHz / seconds) * 100).toFixed(2));
    return { cpu_percent: Number(((cpu / seconds) * 100).toFixed(2)), threads };
  };
}

/** CPU percent of one core that `pid` used over `seconds` from now, and its busiest threads. */
export async function meterFor(
  pid: number,
  seconds: number,
  roles?: ReadonlyMap<number, string>,
): Promise<ThreadCpu> {
  const read = meterThreads(pid, 8, roles);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return read();
}

/**
 * CPU seconds a process and its children it waited for have used (utime + stime + cutime + cstime):
 * what a shell loop costs, its short-lived commands included; null once it is gone.
 */
export function readTreeCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / userHz : null;
  } catch {
    return null;
  }
}
