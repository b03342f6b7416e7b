/**
 * Waits for a process to go idle: for `--guard` runs that need a daemon's start-up work done before
 * they measure, without waiting out the fixed settle of the full runs (15 s a daemon with --short,
 * when its start-up work took a few seconds).
 */
import { readCpuSeconds } from './process-meter.js';

/** The window over which a process's CPU use is read. */
const windowMs = 1_000;

/**
 * Resolves once `pid` used less than `shareOfCore` of one core over a whole window, or within a
 * window of `untilMs` (a Date.now() instant) at the latest; with the milliseconds it waited.
 */
export async function awaitIdle(pid: number, shareOfCore: number, untilMs: number): Promise<number> {
  const started = Date.now();
  let before = { cpu: readCpuSeconds(pid), at: started };
  while (Date.now() + windowMs <= untilMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = { cpu: readCpuSeconds(pid), at: Date.now() };
    const used = now.cpu === null || before.cpu === null ? null : now.cpu - before.cpu;
    if (used !== null && used / ((now.at - before.at) / 1000) < shareOfCore) break;
    before = now;
  }
  return Date.now() - started;
}
