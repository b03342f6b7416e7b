/**
 * What a phase of a benchmark cost another process: its peak RSS (peak-rss.ts) and its CPU time, all
 * threads together (Linux only): utime + stime from /proc/<pid>/stat, which the kernel reports in
 * USER_HZ ticks, 100 per second on every Linux ABI. CPU per event holds still when other work
 * shares the cores; events/s does not.
 */
import { readFileSync } from 'node:fs';
import { readPeakRssBytes, resetPeakRss } from './peak-rss.js';

const userHz = 100;

/** User plus system CPU seconds `pid` has used so far, or null when /proc does not say. */
export function readCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces and parentheses: fields are counted after its last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / userHz : null;
  } catch {
    return null;
  }
}

/** Microseconds of CPU per event, to one decimal; null without a reading or events. */
export function cpuMicrosPerEvent(cpuSeconds: number | null, events: number): number | null {
  return cpuSeconds === null || events <= 0 ? null : Number(((cpuSeconds * 1e6) / events).toFixed(1));
}

/** The fields a metered phase adds to its result line. */
export interface ProcessCost {
  peak_rss_bytes: number | null;
  cpu_s: number | null;
  cpu_us_per_event: number | null;
}

/** Starts metering `pid`: resets its peak RSS now; the returned function reads the phase's cost. */
export function meterProcess(pid: number): (events: number) => ProcessCost {
  resetPeakRss(pid);
  const cpuBefore = readCpuSeconds(pid);
  return (events) => {
    const cpuAfter = readCpuSeconds(pid);
    const cpu = cpuBefore === null || cpuAfter === null ? null : Number((cpuAfter - cpuBefore).toFixed(2));
    return {
      peak_rss_bytes: readPeakRssBytes(pid),
      cpu_s: cpu,
      cpu_us_per_event: cpuMicrosPerEvent(cpu, events),
    };
  };
}
