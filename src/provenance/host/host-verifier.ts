/**
 * When verify-host verifies, on the store thread. A call answers from what the last verification
 * found while nothing it depends on changed since (the write queue's `changes`, the anchor file,
 * the host rounds' anchoring): no snapshot, no DuckDB round trip. Otherwise one verification of
 * what changed (verify-host.sql.ts) runs, shared by concurrent calls. `?full=true` verifies
 * everything again; so does the first call after a start, and a background run every
 * `fullEveryMs` that yields to requests between its chunks and hands what it verified to the
 * calls after it. When everything was last verified in full goes to producer health.
 */
import { lstatSync } from 'node:fs';
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError, toErrorData } from '../../shared/errors.js';
import { log } from '../../shared/log.js';
import { VerifyFlight, type Verified } from '../verify-flight.js';
import type { VerifyResult } from '../verify-result.js';
import { checkHost, HostVerified, type HostCheckParts } from './verify-host.sql.js';

/** What the verifier needs from the store module. */
export interface HostVerifierParts extends HostCheckParts {
  snapshot: <T>(body: (connection: StoreConnection) => Promise<T>) => Promise<T>;
  /** The write queue's `changes`: the writes that may have changed the evidence, ended so far. */
  changes: () => number;
  /** Keeps that a full verification took `ms` (producer health reports it); never throws. */
  recordFull: (ms: number) => Promise<void>;
  /** How often everything is verified again in the background; null: never. */
  fullEveryMs: number | null;
}

/** The longest pause a background run takes after a chunk. */
const maxPauseMs = 5000;

/** Verifies the host events, answering from what it kept while nothing changed. */
export class HostVerifier {
  private kept = new HostVerified();
  /** What a full verification found, for the next cheap call to go on from. */
  private adopted: HostVerified | null = null;
  /** Bumped when a full verification hands its state over: answers kept before it are stale. */
  private epoch = 0;
  private readonly cheap: VerifyFlight<VerifyResult>;
  private readonly full: VerifyFlight<VerifyResult>;
  /** A background full verification with nobody waiting on it: it pauses between chunks. */
  private pacing = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The background run in flight, and how to end its pause early. */
  private background: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private lastAttemptMs = Date.now();
  /** When everything was last verified in full (ms since the epoch), and how long it took. */
  lastFull: { atMs: number; ms: number } | null = null;

  constructor(private readonly parts: HostVerifierParts) {
    this.cheap = new VerifyFlight(
      () => this.version(),
      () => this.verifyChanges(),
    );
    this.full = new VerifyFlight(
      () => this.version(),
      () => this.verifyAll(),
      false,
    );
  }

  /** Starts the background full verifications (when `fullEveryMs` is set). */
  start(): void {
    this.schedule();
  }

  /** Stops the background runs: one in flight ends at its next chunk. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
  }

  /** Stops, and waits for a background run in flight to end (at most a chunk): before the store closes. */
  async drain(): Promise<void> {
    this.stop();
    await this.background;
  }

  /** The host events verified: what changed since the last call, or (`full`) everything again. */
  verify(full = false): Promise<VerifyResult> {
    if (!full) return this.cheap.answer();
    this.pacing = false; // someone waits for it now
    return this.full.answer();
  }

  /** Everything a kept answer depends on. */
  private version(): string {
    const { witness } = this.parts;
    return [
      this.parts.changes(),
      this.epoch,
      witness.through(),
      witness.pending().length,
      fileStamp(this.parts.anchorFile),
    ].join('|');
  }

  private async verifyChanges(): Promise<Verified<VerifyResult>> {
    const version = this.version();
    if (this.adopted !== null) {
      this.kept = this.adopted;
      this.adopted = null;
    }
    const fresh = this.kept.fresh;
    const started = performance.now();
    const through = this.parts.witness.through(); // before the snapshot: what it may not hold yet is later
    try {
      const { result, verified } = await this.parts.snapshot((connection) =>
        checkHost(connection, this.kept, through, this.parts),
      );
      this.kept = verified;
      if (fresh) await this.fullDone(started, result); // from nothing: everything was verified
      return { version, result };
    } catch (error) {
      this.kept = new HostVerified(); // half-updated: the next call starts over
      throw error;
    }
  }

  private async verifyAll(): Promise<Verified<VerifyResult>> {
    const version = this.version();
    const started = performance.now();
    this.lastAttemptMs = Date.now();
    const through = this.parts.witness.through();
    const { result, verified } = await this.parts.snapshot((connection) =>
      checkHost(connection, new HostVerified(), through, this.parts, (chunkMs) => this.pace(chunkMs)),
    );
    // the next cheap call goes on from it, and no answer kept before it is given again
    this.adopted = verified;
    this.epoch++;
    await this.fullDone(started, result);
    return { version, result };
  }

  /**
   * A background run takes DuckDB's threads at most about half the time: requests go on beside it.
   * It ends (throws) at the first chunk after the store began to close.
   */
  private async pace(chunkMs: number): Promise<void> {
    if (!this.pacing) return;
    if (!this.stopped)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(Math.max(chunkMs, 1), maxPauseMs));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    this.wake = null;
    if (this.stopped) throw new ProvdError('PROVD_ERR_STORE_STOPPED', 'the store is closing');
  }

  private async fullDone(started: number, result: VerifyResult): Promise<void> {
    const ms = Math.round(performance.now() - started);
    this.lastFull = { atMs: Date.now(), ms };
    // counted before it is logged: whoever reads the log line finds the count in producer health
    await this.parts.recordFull(ms);
    log('info', 'host events verified in full', {
      status: result.status,
      errors: result.error_count,
      warnings: result.warning_count,
      ms,
    });
    this.schedule();
  }

  /** The next background run: a period after the last full verification (or attempt). */
  private schedule(): void {
    const every = this.parts.fullEveryMs;
    if (every === null || this.stopped) return;
    const last = Math.max(this.lastFull?.atMs ?? 0, this.lastAttemptMs);
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => void (this.background = this.runBackground().finally(() => (this.background = null))),
      Math.min(Math.max(0, last + every - Date.now()), 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  private async runBackground(): Promise<void> {
    const every = this.parts.fullEveryMs!;
    if (this.lastFull !== null && Date.now() - this.lastFull.atMs < every) return this.schedule();
    this.pacing = !this.full.busy; // joining a call's run: no pauses
    try {
      await this.full.answer();
    } catch (error) {
      if (!this.stopped)
        log('warn', 'the background full verification of the host events failed; it runs again in a period', {
          error: toErrorData(error, 'PROVD_ERR_STORE_QUERY'),
        });
    } finally {
      this.pacing = false;
    }
    this.schedule();
  }
}

/** The file's identity, size and times (lstat: a link planted at the path changes it too), or its absence. */
function fileStamp(path: string): string {
  try {
    const stat = lstatSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // unreadable for another reason: never the same stamp twice, so the file is read again
    return code === 'ENOENT' ? 'none' : `${code}:${performance.now()}`;
  }
}
