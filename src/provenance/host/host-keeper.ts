/**
 * The host rounds, on the store thread, as housekeeping writes: each round, in one transaction,
 * removes the host events retention makes due (host-retention.sql.ts) and appends a signed host
 * chain entry when the host digests changed since the last one (or retention removed some), so the
 * host events that remain can be verified and the removed ones are on signed record. Nothing is done
 * per event at ingest: a round reads the digests (one row per ingest batch) and, with retention on,
 * one pass over the host events.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { log } from '../../shared/log.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { inTransaction } from '../../store/sql.js';
import { StepTrace } from '../../store/step-trace.js';
import { classifyStoreError } from '../../store/store-error.js';
import type { WriteQueue } from '../../store/write-queue.js';
import type { SigningKey } from '../signing-key.js';
import { countRemoval } from './host-counters.sql.js';
import { appendHostEntry, readHostHead, type Retention } from './host-chain.sql.js';
import {
  readHostDigests,
  summarizeDigests,
  type DigestsSummary,
  type HostDigest,
} from './host-digests.sql.js';
import { ProvdError, toErrorData } from '../../shared/errors.js';
import { appendAnchor } from './host-anchor.js';
import { startAnchor } from './host-anchor-start.sql.js';
import type { HostLimits } from './host-limits.js';
import { removeDueHostEvents, type Removal } from './host-retention.sql.js';

/** The pause before the next round when a round stopped at its bound with more to remove. */
const catchUpMs = 1000;

/** What a round did. */
export interface HostRound {
  /** The entry appended, or null when nothing changed. */
  entry: string | null;
  removal: Removal | null;
}

/** An entry of the host chain, by index and hash. */
export interface HostEntryRef {
  index: number;
  hash: string;
}

/** Runs host rounds on a timer (every `limits.roundMs`) until stopped. */
export class HostKeeper {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The entry this daemon signed last (or found anchored at start): a round extends only it. */
  private head: HostEntryRef | null = null;
  /** Entries committed whose anchor line is not written yet: the one being committed, those whose append failed. */
  private readonly unanchored: HostEntryRef[] = [];
  /** `writes.changes` when the last round began (-1: none yet). */
  private changesSeen = -1;
  /** A line per round that ran, with PROVD_TRACE_STEPS. */
  private readonly trace = new StepTrace('host_round');

  constructor(
    private readonly connection: StoreConnection,
    private readonly writes: WriteQueue,
    private readonly key: SigningKey,
    private readonly limits: HostLimits,
    private readonly anchorFile: string,
  ) {}

  /** Reconciles the anchor file with the chain (host-anchor-start.sql.ts), then starts the rounds. */
  async start(): Promise<void> {
    this.head = await this.writes.run(() => startAnchor(this.connection, this.anchorFile, this.key), {
      housekeeping: true,
      changed: () => true,
    });
    this.schedule(this.limits.roundMs);
  }

  /** The index of the entry this daemon signed or found anchored last (-1: none). */
  anchoredThrough(): number {
    return this.head?.index ?? -1;
  }

  /** Entries committed and not anchored yet: verify-host counts them pending, not missing. */
  pendingAnchors(): readonly HostEntryRef[] {
    return this.unanchored;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Writes the lines of entries committed and not anchored yet; a failure is logged and retried next round. */
  private anchorPending(): void {
    if (this.unanchored.length === 0) return;
    try {
      for (const point of appendAnchor(this.anchorFile, this.key, this.unanchored))
        log('info', 'host chain anchored', { index: point.index, hash: point.hash, at: point.at });
      this.unanchored.length = 0;
    } catch (error) {
      log('error', 'the host chain anchor could not be written; the next round tries again', {
        file: this.anchorFile,
        entries: this.unanchored.length,
        error: toErrorData(error, 'PROVD_ERR_STORE_IO'),
      });
    }
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let next = this.limits.roundMs;
    try {
      const round = await this.writes.run(() => (this.hasNothingToDo() ? idleRound : this.round()), {
        housekeeping: true,
        // an entry signed or events removed: verify-host's kept answer no longer holds
        changed: ({ entry, removal }) => entry !== null || (removal?.digests.length ?? 0) > 0,
      });
      if (round.removal?.more === true) next = catchUpMs;
    } catch (error) {
      log('warn', 'a host round failed; the next round tries again', { error: classifyStoreError(error) });
    }
    if (!this.stopped) this.schedule(next);
  }

  /**
   * Whether a round would find nothing to do; call inside the write queue. Without retention a
   * round signs only what writes changed, and a write that may have (a commit, the spool giving
   * rows up, a failed round) counts in `writes.changes`: an idle daemon then opens no transaction.
   */
  private hasNothingToDo(): boolean {
    const retaining = this.limits.ageMs !== null || this.limits.maxBytes !== null;
    return !retaining && this.unanchored.length === 0 && this.writes.changes === this.changesSeen;
  }

  /** One round in one transaction, then its entry's anchor line; call inside the write queue. */
  async round(): Promise<HostRound> {
    this.changesSeen = this.writes.changes;
    this.trace.begin();
    this.anchorPending();
    const retaining = this.limits.ageMs !== null || this.limits.maxBytes !== null;
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const started = performance.now();
    let signed: HostEntryRef | null = null;
    const round = await inTransaction(this.connection, async (): Promise<HostRound> => {
      const head = await readHostHead(this.connection);
      assertHeadIsOurs(this.head, head);
      const removal = retaining ? await removeDueHostEvents(this.connection, this.limits, nowNs) : null;
      const digests = await readHostDigests(this.connection);
      const summary = summarizeDigests(digests);
      if (head !== null) assertSignedStillStored(head.digests, digests, removal);
      const removed = removal !== null && removal.digests.length > 0;
      const changed =
        head === null
          ? summary.count > 0
          : head.digests.root !== summary.root || head.digests.count !== summary.count;
      if (!removed && !changed) {
        await countRemoval(this.connection, removal);
        return { entry: null, removal };
      }
      signed = await appendHostEntry(
        this.connection,
        this.key,
        summary,
        removed ? retentionOf(removal, this.limits) : undefined,
      );
      // pending from before COMMIT: a verify whose snapshot holds the entry finds it here or in the file
      this.unanchored.push(signed);
      await countRemoval(this.connection, removal);
      return { entry: signed.hash, removal };
    }).catch((error: unknown) => {
      if (signed !== null) this.unanchored.splice(this.unanchored.indexOf(signed), 1);
      throw error;
    });
    if (signed !== null) {
      this.head = signed;
      // a crash here leaves an entry without its line: the next start anchors it as recovered
      if (this.limits.killBeforeAnchor === true) process.kill(process.pid, 'SIGKILL');
      this.anchorPending();
    }
    if (round.removal !== null && (round.removal.digests.length > 0 || round.removal.refused.length > 0))
      log('info', 'host events retained', {
        events: round.removal.events,
        batches: round.removal.digests.length,
        refused: round.removal.refused,
        entry: round.entry,
        ms: Math.round(performance.now() - started),
      });
    this.trace.end({ signed: round.entry === null ? 0 : 1 });
    return round;
  }
}

/** What a round skipped by hasNothingToDo did. */
const idleRound: Promise<HostRound> = Promise.resolve({ entry: null, removal: null });

/**
 * Throws (the round rolls back) unless the chain's head is the entry this daemon signed or
 * anchored last: entries removed, replaced or added behind its back are never extended.
 */
function assertHeadIsOurs(ours: HostEntryRef | null, head: { hash: string; index: number } | null): void {
  if (ours?.hash === head?.hash && ours?.index === head?.index) return;
  throw new ProvdError(
    'PROVD_ERR_HOST_CHAIN_DIVERGED',
    `the host chain's head is ${head === null ? 'gone' : `entry ${head.index}`}, not entry ${ours?.index ?? '(none)'} this daemon signed and anchored last: nothing is signed or removed until GET /v1/graph/verify-host is looked at`,
  );
}

/**
 * Throws (the round rolls back) unless the digests the head signed are all still stored as signed,
 * but for those this round removed: a round never signs over a digest removed or edited behind its
 * back, so verify keeps reporting it.
 */
function assertSignedStillStored(
  signed: DigestsSummary,
  digests: readonly HostDigest[],
  removal: Removal | null,
): void {
  const through = BigInt(signed.through_seq);
  const before = [
    ...digests.filter((digest) => digest.seqFrom <= through),
    // those removed that it signed (one committed since the head is removed unsigned, but on record)
    ...(removal?.digests ?? [])
      .filter((digest) => BigInt(digest.seq_from) <= through)
      .map((digest) => ({
        batchId: digest.batch_id,
        seqFrom: BigInt(digest.seq_from),
        seqTo: BigInt(digest.seq_to),
        events: digest.events,
        merkleRoot: digest.merkle_root,
      })),
  ].sort((a, b) => (a.seqFrom < b.seqFrom ? -1 : a.seqFrom > b.seqFrom ? 1 : 0));
  const now = summarizeDigests(before);
  if (now.root !== signed.root || now.count !== signed.count)
    throw new ProvdError(
      'PROVD_ERR_HOST_CHAIN_DIVERGED',
      `the stored host digests differ from those the host chain signed (${now.count} for ${signed.count}): nothing is signed or removed until GET /v1/graph/verify-host is looked at`,
    );
}

/** The retention record an entry carries: what was removed, and under which setting. */
function retentionOf(removal: Removal, limits: HostLimits): Retention {
  const reasons = [
    ...(limits.ageMs === null ? [] : [`age ${formatDuration(limits.ageMs)}`]),
    ...(limits.maxBytes === null ? [] : [`bytes ${limits.maxBytes}`]),
  ];
  return {
    reason: reasons.join(', '),
    digests: removal.digests,
    events: removal.events,
    bytes: removal.bytes,
    time_from: removal.oldestNs === null ? null : formatRfc3339Nanos(removal.oldestNs),
    time_to: removal.newestNs === null ? null : formatRfc3339Nanos(removal.newestNs),
  };
}

/** A duration as the flag takes it: the largest unit that divides it (7d, 36h, 90s, 500ms). */
function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
