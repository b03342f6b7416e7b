/**
 * What `provd health --wait --pid PID` learns of the daemon's process from Linux's /proc: whether it
 * has ended, and which file it writes its log to (the file its stderr was sent to).
 */
import { readFileSync, readlinkSync, statSync } from 'node:fs';

/** Whether process `pid` has ended: gone, or a zombie its parent has not reaped yet. */
export function processEnded(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ...`: comm may hold spaces and parentheses, the state follows the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The regular file process `pid` sends its stderr to (else its stdout), as `provd daemon ... >
 * /tmp/provd.log 2>&1 &` does; undefined for a terminal, a pipe, or a process this user cannot see.
 */
export function outputFileOf(pid: number): string | undefined {
  for (const fd of [2, 1]) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('/') && statSync(target).isFile()) return target;
    } catch {
      // not readable, or gone: try the next
    }
  }
  return undefined;
}
