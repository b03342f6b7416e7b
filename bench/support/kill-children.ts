/**
 * Last-resort cleanup for the benchmark's watchdog: finds this process's direct children in /proc
 * (including one still starting, whose handle we never got) and kills them, so a hung daemon never
 * outlives the run.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Sends SIGKILL to every direct child of this process; returns their pids. */
export function killChildProcessesSync(): number[] {
  const pids = listChildPidsSync();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids;
}

/** Lists direct children: each thread's /proc/self/task/<tid>/children names those it forked. */
function listChildPidsSync(): number[] {
  const pids: number[] = [];
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const text = readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim();
      if (text !== '') pids.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // no /proc or no CONFIG_PROC_CHILDREN: the caller's own handles are all we can stop
  }
  return pids;
}
