/**
 * The sensor on the main thread: starts the addon, hands each batch of raw records to the ingest
 * router (decoded in the normalize pool, never here), and reports what attached and what was lost.
 * A batch the router cannot take is dropped and counted, never silently.
 */
import type { CaptureMode } from './capture-filter.js';
import { log } from '../shared/log.js';
import type { BindingLog } from '../telemetry/binding-log.js';
import { captureKeys, captureLeavesOut, cgroupMount } from './capture-filter.js';
import { CaptureCoverage, type StartedProcess } from './capture-coverage.js';
import { markSourceAddress, markTargetOf, type ConnectMarkReport } from './connect-mark.js';
import {
  loadSensorAddon,
  type NativeExecs,
  type NativeLoss,
  type NativeProbe,
  type NativeSensor,
} from './binding.js';
import { sensorUnavailable } from './host-support.js';
import { batchTgids } from './batch-tgids.js';
import { encodeLossBatch, type Loss } from './loss-records.js';
import { filteredReportMs, lossNews } from './loss-news.js';
import { batchHeaderBytes } from './records.js';
import { probeSpecs } from './probes.js';
import { TlsTargets, type TlsTargetReport } from './tls-targets.js';
import type { TlsStats } from './tls/reassembler.js';
import { TlsPool, type TlsTaskResult } from './tls/tls-pool.js';

/**
 * Batches of the ring reader: handed over at 4,096 records, 1 MiB or 1 s, whichever comes first.
 * At ordinary rates a batch is a normalize task and a share of a commit: fewer, larger ones cost less.
 */
const batchLimits = { batchRecords: 4096, batchBytes: 1024 * 1024, flushMs: 1000 };
/** Bytes of batches being normalized or committed at once; past it a batch is dropped and counted. */
const maxBytesInFlight = 64 * 1024 * 1024;
/** How long stopping waits for the batches the ring reader queued to reach JS. */
const deliveryDeadlineMs = 10_000;
/**
 * How soon after a batch arrives new loss is sent on as capture_loss events (coverage gaps). Each
 * report is a normalize task: a host whose opens are counted `truncated` every second would
 * otherwise send one each second.
 */
const lossReportMs = 5000;
/**
 * How often loss is looked for when no batch comes: counters that move without records (a probe
 * the kernel skipped) are reported within this; records the capture filter left out, alone, within
 * filteredReportMs (loss-news.ts).
 */
const idleLossReportMs = 30_000;
/** How often the TLS pool ends streams left idle (a body that runs to its connection's end completes then). */
const tlsFlushMs = 5000;

/** Where batches go: the ingest router (src/ingest/ingest-router.ts), which normalizes and commits them. */
export interface BatchSink {
  /**
   * `linger` false: commit at once, and take along the batches lingering for a shared commit; a
   * function is asked once the batch is normalized, just before its commit.
   */
  ingestSensorBatch(batch: Uint8Array, linger?: boolean | (() => boolean)): Promise<unknown>;
}

/** One probe in the capability report. */
export interface ProbeReport {
  attached: boolean;
  required: boolean;
  error: string | null;
  /** Records dropped in the kernel: the ring buffer had no room. */
  ring_full: number;
  /** Records sent with a bounded field cut. */
  truncated: number;
  /** Records dropped in the kernel: too many of the probe's syscalls were in flight at once. */
  pending_full: number;
  /** Events the probe never saw: the kernel skipped its programs while another BPF program ran on the CPU. */
  missed: number;
  /** Events left out on purpose: capture agents, of a process nothing binds (not loss, not a gap). */
  filtered: number;
}

/** health's `native_capture`: whether the sensor runs, why not, and each probe. */
export interface CaptureReport {
  status: 'running' | 'degraded' | 'off' | 'unavailable' | 'failed';
  message: string | null;
  probes: Record<string, ProbeReport>;
  /**
   * The capture mode, the filter keys bindings added (and refused when the kernel's map was full),
   * and what the mode leaves out on purpose (null: nothing, `host`).
   */
  capture: { mode: CaptureMode; bound: number; refused: number; leaves_out: string | null };
  records: number;
  /** Records lost between the kernel and the store, by where. */
  dropped: { handoff: number; backpressure: number; commit_failed: number; malformed: number };
  /** TLS plaintext: the targets found and probed, and what the TLS pool holds and lost. */
  tls: { targets: TlsTargetReport[]; reassembly: TlsStats | null };
}

/** The running sensor, or the reason it is not running. */
export class Sensor {
  private readonly inFlight = new Set<Promise<void>>();
  private bytesInFlight = 0;
  /** Set once every batch was stored: a batch after that could not be, and is counted as such. */
  private stopped = false;
  /** Set when stopping begins: batches no longer linger for a shared commit, so stopping waits for none. */
  private stopping = false;
  /** Callers of storePending() waiting: meanwhile no batch lingers either. */
  private hurrying = 0;
  /** Whether a batch's commit may linger for others to join it (asked just before it commits). */
  private readonly mayLinger = (): boolean => !this.stopping && this.hurrying === 0;
  /** Batches and records the ring reader handed to JS so far. */
  private deliveredBatches = 0;
  private deliveredRecords = 0;
  /** Records the reader queued that never reached JS before the stop deadline. */
  private undelivered = 0;
  /** Loss already sent on as capture_loss events, by `kind probe`. */
  private readonly reportedLoss = new Map<string, number>();
  /** Set while a loss report waits to run after a batch. */
  private lossTimer: NodeJS.Timeout | undefined;
  private idleLossTimer: NodeJS.Timeout | undefined;
  private backpressureDropped = 0;
  private commitFailedDropped = 0;
  private tlsPool: TlsPool | null = null;
  private tlsTargets: TlsTargets | null = null;
  private tlsStats: TlsStats | null = null;
  private tlsTimer: NodeJS.Timeout | undefined;
  /** Loss reported once rather than counted (a TLS target not captured), waiting to be sent. */
  private readonly oneOffLosses: Loss[] = [];
  private readonly capture = {
    mode: 'agents' as CaptureMode,
    bound: 0,
    refused: 0,
    leaves_out: captureLeavesOut('agents'),
  };

  private constructor(
    private readonly native: NativeSensor | null,
    private readonly why: { status: CaptureReport['status']; message: string | null },
    private readonly router?: BatchSink,
  ) {}

  /** A sensor that is not running, for `why`; health still names the capture mode it was given. */
  static off(status: 'off' | 'unavailable', message: string, capture: CaptureMode = 'agents'): Sensor {
    return new Sensor(null, { status, message }).withCapture(capture);
  }

  private withCapture(capture: CaptureMode): this {
    this.capture.mode = capture;
    this.capture.leaves_out = captureLeavesOut(capture);
    return this;
  }

  /**
   * Starts the sensor where this host allows it: root (or CAP_BPF and CAP_PERFMON), BTF, the addon
   * built. Never throws: a sensor that cannot run is reported, and the daemon runs without it.
   */
  static async start(
    router: BatchSink,
    /** For tests: the reader's stall after each poll, and a smaller exec history (NativeSensorOptions). */
    faults: { stallMs: number; execHistoryPids?: number } = { stallMs: 0 },
    capture: CaptureMode = 'agents',
    bindings?: BindingLog,
  ): Promise<Sensor> {
    const why = sensorUnavailable();
    if (why !== undefined) return Sensor.off('unavailable', why, capture);
    const addon = loadSensorAddon();
    if ('unavailable' in addon) return Sensor.off('unavailable', addon.unavailable, capture);
    const started: { sensor?: Sensor } = {}; // batches arrive only after start() resolves
    const native = new addon.Sensor(
      {
        selfTgid: process.pid,
        captureBound: capture === 'agents',
        ...batchLimits,
        ...faults,
        markCgroupRoot: cgroupMount() ?? undefined,
      },
      (batch, records) => started.sensor?.take(batch, records),
      (batch, records) => started.sensor?.take(batch, records, true),
    );
    const sensor = (started.sensor = new Sensor(native, { status: 'running', message: null }, router));
    try {
      await native.start();
    } catch (error) {
      await native.close();
      const message = error instanceof Error ? error.message : String(error);
      return new Sensor(null, { status: 'failed', message }).withCapture(capture);
    }
    sensor.withCapture(capture);
    if (capture === 'host') sensor.coverage.captureAll();
    if (bindings !== undefined) sensor.followBindings(native, bindings);
    const report = sensor.report();
    if (report.status !== 'running') log('warn', 'the sensor runs degraded', { message: report.message });
    sensor.idleLossTimer = setInterval(() => void sensor.reportLoss(), idleLossReportMs);
    sensor.idleLossTimer.unref();
    if (report.probes['tls_write']?.attached === true) sensor.startTls(native);
    return sensor;
  }

  /**
   * Every binding so far that has not ended, and each one appended from now on, goes into the
   * kernel's bound set: with --capture agents its capture filter (a recorded command is bound before
   * it starts, so it is captured whole), in every mode the connect mark's.
   */
  private followBindings(native: NativeSensor, bindings: BindingLog): void {
    const bind = (binding: Parameters<typeof captureKeys>[0]): void => {
      for (const key of captureKeys(binding)) {
        if (native.bind(key.kind, key.id)) {
          this.capture.bound++;
          this.coverage.added(key);
        } else {
          this.capture.refused++;
          log('warn', 'the capture filter is full: a bound process is not captured', { ...key });
        }
      }
    };
    bindings.readAll(bind);
    bindings.onAppend(bind);
  }

  /** Why the connect mark is off (null: on); set by markConnectsTo once the daemon listens. */
  private markOff: string | null = 'the daemon does not listen yet';

  /**
   * Has the kernel mark bound processes' connects to the daemon's listener `host`:`port`
   * (connect-mark.ts), by the bindings the kernel's bound set holds in every capture mode.
   */
  markConnectsTo(host: string, port: number): ConnectMarkReport {
    const probe = this.report().probes['connect_mark'];
    if (this.native === null)
      this.markOff = `the sensor is not running: ${this.why.message ?? this.why.status}`;
    else if (probe?.attached !== true)
      this.markOff = `the connect mark did not attach: ${probe?.error ?? 'unknown'}`;
    else if (!this.native.markConnects(markTargetOf(host, port)))
      this.markOff = 'the connect mark was not loaded';
    else this.markOff = null;
    return this.markReport();
  }

  /** Whether bound processes' connects to the daemon are marked, and what the kernel did with them. */
  markReport(): ConnectMarkReport {
    const counts = this.markOff === null ? this.native?.markCounts() : null;
    return {
      active: this.markOff === null,
      why: this.markOff,
      address: markSourceAddress,
      marked: counts?.marked ?? 0,
      refused: counts?.refused ?? 0,
    };
  }

  /** Starts the TLS pool and the search for TLS targets; the first scan goes on in the background. */
  private startTls(native: NativeSensor): void {
    this.tlsPool = new TlsPool();
    this.tlsTargets = new TlsTargets((binary, probes) => native.attachUprobes(binary, probes));
    void this.tlsTargets.start(this.capture.mode === 'host');
  }

  /**
   * After a batch: loss is looked for within lossReportMs, new processes are scanned for TLS
   * targets (TlsTargets rate-limits), and streams the TLS pool holds are ended when idle. Nothing
   * of it runs on a quiet host.
   */
  private afterBatch(batch: ArrayBuffer | null): void {
    if (this.lossTimer === undefined) {
      this.lossTimer = setTimeout(() => {
        this.lossTimer = undefined;
        void this.reportLoss();
      }, lossReportMs);
      this.lossTimer.unref();
    }
    // capture agents: only the processes the batch came from, the bound ones (TlsTargets.scan)
    if (this.tlsTargets !== null && batch !== null)
      void this.tlsTargets.scan(this.capture.mode === 'agents' ? batchTgids(batch) : undefined);
    this.scheduleTlsFlush();
  }

  /** Ends idle TLS streams in tlsFlushMs, unless that is planned already or the sensor stopped. */
  private scheduleTlsFlush(): void {
    if (this.tlsTimer !== undefined || this.tlsPool === null || this.stopped) return;
    this.tlsTimer = setTimeout(() => {
      this.tlsTimer = undefined;
      void this.flushTls(false).then(() => {
        if ((this.tlsStats?.streams ?? 0) > 0) this.scheduleTlsFlush();
      });
    }, tlsFlushMs);
    this.tlsTimer.unref();
  }

  /**
   * Ends the TLS streams left idle (every stream, when `final`), and stores what that completes; a
   * pool still holding streams is looked at again in tlsFlushMs.
   */
  private flushTls(final: boolean): Promise<void> {
    if (this.tlsPool === null) return Promise.resolve();
    if (!final && (this.tlsStats?.streams ?? 1) === 0) return Promise.resolve();
    return this.track(
      this.tlsPool.flush(final).then((result) => this.storeTls(result)),
      0,
      0,
    );
  }

  /**
   * One batch from the ring reader, sent on to the router (`tls`: through the TLS pool first) unless
   * too many are in flight.
   */
  private take(batch: ArrayBuffer, records: number, tls = false): void {
    this.deliveredBatches++;
    this.deliveredRecords += records;
    if (!this.stopped) this.afterBatch(tls ? null : batch);
    if (this.stopped) {
      this.commitFailedDropped += records;
      log('warn', 'a sensor batch came after the sensor stopped', { records });
      return;
    }
    if (this.router === undefined || this.bytesInFlight + batch.byteLength > maxBytesInFlight) {
      this.backpressureDropped += records;
      return;
    }
    const bytes = new Uint8Array(batch);
    const stored =
      tls && this.tlsPool !== null
        ? this.tlsPool.take(bytes).then((result) => this.storeTls(result))
        : this.router.ingestSensorBatch(bytes, this.mayLinger);
    void this.track(stored, records, batch.byteLength);
  }

  /**
   * Follows a batch to the store: `work` stores it; its `records` are counted lost if it fails, its
   * `bytes` count toward the bound on what is in flight until it is done.
   */
  private track(work: Promise<unknown>, records: number, bytes: number): Promise<void> {
    this.bytesInFlight += bytes;
    const stored: Promise<void> = work.then(
      () => undefined,
      (error: unknown) => {
        this.commitFailedDropped += records;
        log('warn', 'a sensor batch was not stored', {
          error: error instanceof Error ? error.message : String(error),
        });
      },
    );
    this.inFlight.add(stored);
    void stored.finally(() => {
      this.inFlight.delete(stored);
      this.bytesInFlight -= bytes;
    });
    return stored;
  }

  /** What the TLS pool made of a batch: its messages and losses go to the store like any batch. */
  private async storeTls(result: TlsTaskResult): Promise<void> {
    this.tlsStats = result.stats;
    if (result.batch.length > batchHeaderBytes)
      await this.router!.ingestSensorBatch(result.batch, this.mayLinger);
  }

  /**
   * Stores what the sensor has read so far before the caller goes on (a watched agent's end is
   * sealed after it, so its run's last events are in the checkpoint): the rings are read now, the
   * batches being built handed over, and every batch in flight committed without lingering (5 s
   * otherwise: event-commit.sql.ts). A record the folder still holds (at most 100 ms, for its
   * repeats or an exec's loader opens) goes later. Bounded by deliveryDeadlineMs; never rejects.
   */
  async storePending(): Promise<void> {
    if (this.native === null || this.router === undefined || this.stopping) return;
    this.hurrying++;
    try {
      const queued = this.native.handOver();
      const deadline = Date.now() + deliveryDeadlineMs;
      while (this.deliveredBatches < queued && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const waiting = [...this.inFlight];
      // batches lingering in the store: an empty one that does not linger takes them along; those
      // still being normalized find mayLinger false when they reach their commit
      waiting.push(this.track(this.router.ingestSensorBatch(encodeLossBatch([], 0n), false), 0, 0));
      await Promise.all(waiting);
    } finally {
      this.hurrying--;
    }
  }

  /**
   * What process `pid` (started at `startTicks`, its /proc start time) exec'd since it started, the
   * rings read first (native/src/exec-history.h); null when the sensor is not reading.
   */
  execsSince(pid: number, startTicks: bigint): NativeExecs | null {
    return this.native?.execsSince(pid, Number(startTicks)) ?? null;
  }

  /**
   * When the exec probe's kernel loss (ring_full, pending_full) was last seen to grow, in Date.now()
   * ms, 0 when never: read now, so a loss since the last call is dated now (never earlier than it was).
   */
  execLossSeenAtMs(): number {
    if (this.native === null) return 0;
    const total = this.native.execLoss();
    if (total !== this.execLoss.total) this.execLoss = { total, seenAtMs: Date.now() };
    return this.execLoss.seenAtMs;
  }

  private execLoss = { total: 0, seenAtMs: 0 };

  /** Since when each bound cgroup and process has been captured (capture-coverage.ts). */
  private readonly coverage = new CaptureCoverage();

  /**
   * Since when the kernel has captured `lineage[0]` (its parents up after it), in clock ticks after
   * boot; null when nothing covers it or the sensor is not running (capture-coverage.ts).
   */
  capturedSince(lineage: readonly StartedProcess[]): bigint | null {
    return this.native === null ? null : this.coverage.since(lineage);
  }

  /** The exec history's processes held and evicted so far; null when the sensor is not running. */
  execHistoryStats(): { processes: number; evicted: number } | null {
    if (this.native === null) return null;
    const { execPids, execsEvicted } = this.native.stats();
    return { processes: execPids, evicted: execsEvicted };
  }

  /** The capability report: status, each probe, and what was lost. */
  report(): CaptureReport {
    const native = this.native;
    const dropped = {
      handoff: 0,
      backpressure: this.backpressureDropped,
      commit_failed: this.commitFailedDropped,
      malformed: 0,
    };
    const tls = { targets: this.tlsTargets?.report() ?? [], reassembly: this.tlsStats };
    if (native === null)
      return {
        status: this.why.status,
        message: this.why.message,
        probes: {},
        capture: this.capture,
        records: 0,
        dropped,
        tls,
      };
    const stats = native.stats();
    dropped.handoff = stats.droppedRecords + this.undelivered;
    dropped.malformed = stats.malformedRecords;
    const { probes, missing } = probeReports(native.probes(), native.loss());
    const failed = stats.failure !== null;
    const status = failed || missing.length > 0 ? 'degraded' : 'running';
    const message = failed
      ? stats.failure
      : missing.length > 0
        ? `required probes did not attach: ${missing.join(', ')}`
        : stats.note;
    return { status, message, probes, capture: this.capture, records: stats.records, dropped, tls };
  }

  /**
   * Waits until JS was handed every batch the reader queued (its thread has ended, so the count is
   * final); what has not come by the deadline is counted as lost in the handoff.
   */
  private async awaitDelivery(): Promise<void> {
    const native = this.native!;
    const deadline = Date.now() + deliveryDeadlineMs;
    while (this.deliveredBatches < native.stats().batches && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const { records, droppedRecords } = native.stats();
    this.undelivered = Math.max(0, records - droppedRecords - this.deliveredRecords);
  }

  /**
   * Sends loss counted since the last report on as capture_loss events, which become coverage gaps;
   * what could not be sent is sent with the next report.
   */
  reportLoss(current?: Map<string, number>, final = false): Promise<void> {
    // one report at a time: each sends what the one before it did not
    this.reporting = this.reporting.then(() => this.sendLoss(current ?? lossTotals(this.report()), final));
    return this.reporting;
  }

  private reporting = Promise.resolve();
  /** When a report last sent (the `filtered` counts with it): loss-news.ts. */
  private lossSentMs = performance.now();

  private async sendLoss(current: Map<string, number>, final: boolean): Promise<void> {
    if (this.router === undefined) return;
    this.oneOffLosses.push(...(this.tlsTargets?.takeLosses() ?? []));
    const filteredDue = final || performance.now() - this.lossSentMs >= filteredReportMs;
    const losses = lossNews(current, this.reportedLoss, this.oneOffLosses, filteredDue);
    if (losses.length === 0) return;
    try {
      await this.router.ingestSensorBatch(
        encodeLossBatch(losses, BigInt(Date.now()) * 1_000_000n),
        this.mayLinger,
      );
      this.lossSentMs = performance.now();
      this.oneOffLosses.splice(0);
      for (const [key, total] of current) this.reportedLoss.set(key, total);
    } catch (error) {
      log('warn', 'sensor loss was not recorded; it is sent again with the next report', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Stops reading and detaches every probe; resolves once what the rings held, and its loss, is stored. */
  async stop(): Promise<void> {
    if (this.native === null) return;
    this.stopping = true;
    clearTimeout(this.lossTimer);
    clearInterval(this.idleLossTimer);
    clearTimeout(this.tlsTimer);
    this.tlsTargets?.stop();
    const final = lossTotals(this.report()); // the kernel's counters go with its programs
    await this.native.close();
    await this.awaitDelivery();
    // batches that came before stopping may linger for a shared commit: an empty one that does not takes them along
    if (this.inFlight.size > 0 && this.router !== undefined)
      void this.track(this.router.ingestSensorBatch(encodeLossBatch([], 0n), false), 0, 0);
    await Promise.all(this.inFlight);
    await this.flushTls(true); // streams still open: what runs to the end completes, the rest is counted
    await this.tlsPool?.close();
    this.stopped = true;
    for (const [key, total] of lossTotals(this.report()))
      final.set(key, Math.max(final.get(key) ?? 0, total));
    await this.reportLoss(final, true);
  }
}

/** Loss so far by `kind probe`: the kernel's counters per probe, and the way to the store as probe `sensor`. */
function lossTotals(report: CaptureReport): Map<string, number> {
  const totals = new Map<string, number>();
  for (const [name, probe] of Object.entries(report.probes)) {
    totals.set(`ring_full ${name}`, probe.ring_full);
    totals.set(`pending_full ${name}`, probe.pending_full);
    totals.set(`truncated ${name}`, probe.truncated);
    totals.set(`missed ${name}`, probe.missed);
    totals.set(`filtered ${name}`, probe.filtered);
  }
  for (const [kind, count] of Object.entries(report.dropped)) totals.set(`${kind} sensor`, count);
  return totals;
}

/** Each probe of probes.ts with what its programs' attach and loss say, and the required ones missing. */
function probeReports(
  attached: NativeProbe[],
  loss: NativeLoss[],
): { probes: Record<string, ProbeReport>; missing: string[] } {
  const probes: Record<string, ProbeReport> = {};
  const missing: string[] = [];
  for (const spec of probeSpecs) {
    const programs = attached.filter(
      (probe) => probe.program === spec.object && spec.programs.includes(probe.probe),
    );
    const failure = programs.find((probe) => !probe.attached);
    const counts = loss.find((count) => count.program === spec.object && count.index === spec.index);
    const error =
      programs.length === 0
        ? `its object "${spec.object}" did not load`
        : failure === undefined
          ? null
          : failure.error;
    probes[spec.name] = {
      attached: error === null,
      required: spec.required,
      error,
      ring_full: counts?.ringFull ?? 0,
      truncated: counts?.truncated ?? 0,
      pending_full: counts?.pendingFull ?? 0,
      missed: programs.reduce((sum, probe) => sum + probe.missed, 0),
      filtered: counts?.filtered ?? 0,
    };
    if (error !== null && spec.required) missing.push(spec.name);
  }
  return { probes, missing };
}
