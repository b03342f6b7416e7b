/**
 * The one place that loads the sensor addon (native/, built by .ci/setup). Mirrors
 * native/src/sensor.h: class Sensor; test/sensor/binding.test.ts checks the exports.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** One probe (a BPF program of an object) and whether it attached. */
export interface NativeProbe {
  program: string;
  probe: string;
  attached: boolean;
  error: string | null;
  /** Times the kernel skipped the program: another BPF program was running on its CPU. */
  missed: number;
}

/** The kernel's loss counters of one probe, summed over CPUs; `index` is its PROBE_* number. */
export interface NativeLoss {
  program: string;
  index: number;
  ringFull: number;
  truncated: number;
  pendingFull: number;
  /** Events left out on purpose: capture agents, of a process nothing binds. */
  filtered: number;
}

/** What the ring reader did since start. */
export interface NativeStats {
  records: number;
  batches: number;
  /** Records in batches dropped because JS had not taken the ones before. */
  droppedRecords: number;
  droppedBatches: number;
  malformedRecords: number;
  /** Processes whose execs the exec history holds, and how many it evicted (full) since start. */
  execPids: number;
  execsEvicted: number;
  /** Why polling stopped, null while it runs. */
  failure: string | null;
  /** What loading did to the host (mounted tracefs), or why it could not. */
  note: string | null;
}

export interface NativeSensorOptions {
  /** The daemon's own process: its events are skipped in the kernel. */
  selfTgid: number;
  /** Only processes bound through bind() (and their cgroups' descendants, their children) are captured. */
  captureBound?: boolean;
  batchRecords: number;
  batchBytes: number;
  flushMs: number;
  /** Fault injection for tests: the ring reader sleeps this long after each poll. */
  stallMs?: number;
  /** For tests: the processes the exec history holds (native/src/exec-history.h; 16,384 when absent). */
  execHistoryPids?: number;
  /** The cgroup v2 root the connect mark attaches to (bpf/connect-mark.bpf.c); without it, it is not loaded. */
  markCgroupRoot?: string;
}

/** The listener whose connects by bound processes the kernel marks: bpf/lib/connect-mark.h: struct mark_target. */
export interface NativeMarkTarget {
  /** Words as the kernel holds them: network-order bytes read in this host's order. */
  port: number;
  ip4: number;
  ip6: [number, number, number, number];
  listensIp6: boolean;
}

/**
 * A uprobe to attach: a program of the TLS object at `offset` in a binary or library's file, the
 * first byte of an instruction (a function's, or a RET's: x86-instructions.ts); `where` names the
 * place in errors (`SSL_write`, `crypto/tls.(*Conn).Read+0xed`).
 */
export interface NativeUprobe {
  program: string;
  where: string;
  offset: number;
  retprobe: boolean;
}

/** Whether one uprobe attached, and why not. */
export interface NativeUprobeReport {
  program: string;
  probe: string;
  attached: boolean;
  error: string | null;
}

/** One exec of a process, as the exec history kept it (native/src/exec-history.h). */
export interface NativeExec {
  wallNs: bigint;
  /** NUL-separated, up to 512 bytes. */
  argv: string;
  truncated: boolean;
}

/** What a process exec'd since it started (native/src/sensor.h: ExecsSince). */
export interface NativeExecs {
  execs: NativeExec[];
  /** It exec'd more times than the history keeps a process (8): the oldest are gone. */
  droppedSince: boolean;
  /** The history evicted a process with an exec since then (it was full): this one's may be gone. */
  evictedSince: boolean;
}

/** native/src/sensor.h: class Sensor. */
export interface NativeSensor {
  start(): Promise<void>;
  /** Attaches programs of the TLS object in `binary`, for every process that maps it. */
  attachUprobes(binary: string, probes: NativeUprobe[]): Promise<NativeUprobeReport[]>;
  probes(): NativeProbe[];
  loss(): NativeLoss[];
  stats(): NativeStats;
  /**
   * What process `pid` exec'd since `startTicks` (its /proc start time, clock ticks after boot),
   * after reading the rings on this thread: every exec the kernel submitted before the call is in
   * it. Null when the sensor reads no rings.
   */
  execsSince(pid: number, startTicks: number): NativeExecs | null;
  /** Exec records the kernel dropped so far (the exec probe's ring_full and pending_full): one map read. */
  execLoss(): number;
  /**
   * Reads the rings now and hands over the batches being built (a record the folder holds for its
   * repeats or loader opens, at most 100 ms, goes later); returns how many batches were queued in
   * all, as stats().batches counts them. 0 when the sensor reads no rings.
   */
  handOver(): number;
  /** Adds a cgroup v2 id or a process id (decimal) to the kernel's capture filter; false when it is full. */
  bind(kind: 'cgroup' | 'process', id: string): boolean;
  /** Marks bound processes' connects to `target` from now on; false when the connect mark is not loaded. */
  markConnects(target: NativeMarkTarget): boolean;
  /** The connects the mark marked and refused so far; null when it is not loaded. */
  markCounts(): { marked: number; refused: number } | null;
  /**
   * Detaches every probe and stops the reader once it has read the rings empty; idempotent. Its
   * last batches may still be on their way to JS when this resolves: stats().batches says how many
   * the reader queued in all (sensor.ts waits for them).
   */
  close(): Promise<void>;
}

export interface SensorAddon {
  /**
   * `onBatch` gets each batch with the number of records in it; `onTlsBatch` the batches of TLS
   * plaintext chunks (read only when given).
   */
  Sensor: new (
    options: NativeSensorOptions,
    onBatch: (batch: ArrayBuffer, records: number) => void,
    onTlsBatch?: (batch: ArrayBuffer, records: number) => void,
  ) => NativeSensor;
}

/** Where .ci/setup builds the addon. */
export const addonPath = fileURLToPath(
  new URL('../../../native/build/Release/provd_sensor.node', import.meta.url),
);

/** The addon, or why it cannot be used. */
export function loadSensorAddon(): SensorAddon | { unavailable: string } {
  if (!existsSync(addonPath))
    return {
      unavailable: `the sensor addon is not built (${addonPath}); .ci/setup builds it where clang, bpftool and libbpf are installed`,
    };
  try {
    return createRequire(import.meta.url)(addonPath) as SensorAddon;
  } catch (error) {
    return {
      unavailable: `failed to load the sensor addon: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
