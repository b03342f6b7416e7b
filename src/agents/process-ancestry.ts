/**
 * A process and its ancestors up to init, from /proc, checked for consistency: every parent is
 * at least as old as its child (a kernel fact, re-parenting included: an orphan goes to an older
 * subreaper or init), and the first process still has its start time at the end of the walk. A
 * pid that exited and was reused while it was read fails one of the two, and the walk says so
 * instead of answering with a stranger's ancestry.
 */
import { isSameProcess, readProcProcess, type ProcProcess } from './proc-process.js';

/** The chain from a process (first) to its oldest ancestor, or why it could not be read. */
export type Ancestry = { chain: ProcProcess[] } | { unreadable: string };

/** Deeper than any real process tree provd places hooks in; a longer chain is not read further. */
const maxDepth = 64;

/**
 * Reads `pid` and its ancestors, up to init or up to the first process `stopAt` holds of (an agent
 * already bound: nothing above it changes where the caller stands, and each process costs four
 * /proc reads).
 */
export function readAncestry(pid: number, stopAt: (process: ProcProcess) => boolean = () => false): Ancestry {
  const chain: ProcProcess[] = [];
  let next = pid;
  while (next > 0 && chain.length < maxDepth) {
    const process = readProcProcess(next);
    if (process === null)
      return {
        unreadable:
          chain.length === 0 ? `process ${pid} is gone` : `its ancestor ${next} exited while it was read`,
      };
    const child = chain[chain.length - 1];
    if (child !== undefined && process.startTicks > child.startTicks)
      return { unreadable: `pid ${next} was reused while the ancestry of ${pid} was read` };
    chain.push(process);
    if (stopAt(process)) break;
    next = process.ppid;
  }
  const first = chain[0];
  if (first === undefined || !isSameProcess(first))
    return { unreadable: `process ${pid} exited or its pid was reused while it was read` };
  return { chain };
}
