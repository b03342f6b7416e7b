/**
 * Peak resident set size of another process, read from /proc (Linux only). The kernel keeps the
 * high-water mark as VmHWM in /proc/<pid>/status; writing 5 to /proc/<pid>/clear_refs resets it
 * (Linux >= 4.0, same user), which lets each measurement report its own peak.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Returns VmHWM of `pid` in bytes, or null when /proc does not say (not Linux, process gone). */
export function readPeakRssBytes(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets the peak-RSS mark of `pid` to its current RSS; returns false when the kernel refused. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
