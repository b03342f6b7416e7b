/**
 * Since when the kernel has captured a process (--capture agents: since a binding put it in the
 * filter, capture-filter.ts; --capture host: since the sensor started). The exec history
 * (exec-history-check.ts) vouches for a process only when that began before its fork: a cgroup
 * bound while its processes ran was not captured before, and the execs they made then are not in
 * the history. Times are clock ticks after boot (/proc/uptime, read once a key is in the kernel's
 * map), the unit and clock of a process's /proc start time, so the two compare without the boot
 * time's whole-second rounding.
 */
import { readFileSync } from 'node:fs';
import { processCgroupChain } from '../provenance/record/cgroup-root.js';
import { cgroupMount, type CaptureKey } from './capture-filter.js';

/** A process by pid and /proc start time (clock ticks after boot). */
export interface StartedProcess {
  pid: number;
  startTicks: bigint;
}

export class CaptureCoverage {
  /** --capture host: when the probes were attached. */
  private hostSince: bigint | null = null;
  /** Cgroup ids, when first bound: a cgroup stays in the kernel's map. */
  private readonly cgroups = new Map<string, bigint>();
  /** Process ids, when last bound: the kernel drops a pid at its process's exit, and a later binding adds it again. */
  private readonly pids = new Map<number, bigint>();

  /** Every process is captured from now on (--capture host). */
  captureAll(): void {
    this.hostSince = bootTicksNow();
  }

  /** `key` is in the kernel's filter now. */
  added(key: CaptureKey): void {
    const now = bootTicksNow();
    if (key.kind === 'process') this.pids.set(Number(key.id), now);
    else if (!this.cgroups.has(key.id)) this.cgroups.set(key.id, now);
  }

  /**
   * Since when the kernel has captured `lineage[0]` (clock ticks after boot), `lineage` being the
   * process and its parents up (as /proc read them); null when nothing the sensor was given covers
   * it. A cgroup covers the processes in it or below it; a bound pid covers its process from the
   * binding, and the processes forked under it since (the kernel adds a bound process's children
   * at their fork): an ancestor counts only when every process below it down to this one started
   * after it was bound.
   */
  since(lineage: readonly StartedProcess[]): bigint | null {
    const process = lineage[0];
    if (process === undefined) return null;
    let since = this.hostSince;
    const earlier = (ticks: bigint | undefined): void => {
      if (ticks !== undefined && (since === null || ticks < since)) since = ticks;
    };
    const mount = this.cgroups.size > 0 ? cgroupMount() : null;
    if (mount !== null)
      for (const { id } of processCgroupChain(process.pid, mount))
        if (id !== null) earlier(this.cgroups.get(id));
    lineage.forEach((holder, at) => {
      const bound = this.pids.get(holder.pid);
      // the holder ran when it was bound (not a later process given its pid), and for an ancestor,
      // the process below it was forked after that, and so was every one below (a child starts after its parent)
      if (
        bound !== undefined &&
        holder.startTicks <= bound &&
        (at === 0 || lineage[at - 1]!.startTicks > bound)
      )
        earlier(bound);
    });
    return since;
  }
}

/**
 * Whether a process started at `startTicks` was captured from its fork, its capture having begun at
 * `since` (null: none): /proc counts a start in 10 ms ticks, so one in the tick its capture began
 * in may have come before it, and is not.
 */
export function isCapturedFromFork(since: bigint | null, startTicks: bigint): boolean {
  return since !== null && since < startTicks;
}

/** Now, in clock ticks after boot (/proc/uptime: CLOCK_BOOTTIME in hundredths of a second, as /proc counts a start). */
export function bootTicksNow(): bigint {
  const [seconds, hundredths] = readFileSync('/proc/uptime', 'latin1').split(' ')[0]!.split('.');
  return BigInt(seconds!) * 100n + BigInt((hundredths ?? '0').padEnd(2, '0').slice(0, 2));
}
