/**
 * The spool, in the store actor. Events that found no binding wait in the events table as
 * `pending` (so they survive restarts) and are settled when a binding arrives. Once a second this
 * gives up on those older than the TTL (`unclaimed`) and, past the event or byte bound, on the
 * oldest (`overflowed`). Both stay stored as uncorrelated evidence, and both are counted in
 * producer health; nothing leaves the spool silently.
 *
 * Only overflow is loss. An event no binding claimed within the TTL is ordinary host activity that
 * belongs to no run: every host has it, so it is counted apart and never recorded as a coverage
 * gap (the spec lists capture loss, not unattributed capture, as gaps). An overflowed event was
 * denied its TTL by the bounds, so a binding that came in time may have missed it: a coverage gap.
 */
import { randomBytes } from 'node:crypto';
import type { StoreConnection } from '../store/store-connection.js';
import { log } from '../shared/log.js';
import { execute, inTransaction, raw, readRows, sql, type Statement } from '../store/sql.js';
import { classifyStoreError } from '../store/store-error.js';
import type { WriteQueue } from '../store/write-queue.js';
import { spoolCode } from '../model/codes.js';
import { addCounters } from './producer-counters.sql.js';
import type { SpoolLimits } from './spool-limits.js';

/** What the spool holds now. */
export interface SpoolStats {
  events: number;
  bytes: number;
}

// An estimate of a row's stored size, used for the byte bound; must match estimateRowBytes (spool-row-bytes.ts).
const rowBytes = raw(
  'strlen(attrs) + strlen(time) + coalesce(strlen(comm), 0) + ' +
    'coalesce(strlen(cgroup_id), 0) + coalesce(strlen(container_id), 0) + 96',
);

const pending = raw(String(spoolCode('pending')));

/** Expires and bounds the spool on a timer, through the store's write queue. */
/** The most a spooled row stays past its TTL before the upkeep gives it up. */
const maxSlackMs = 10_000;

export class Spool {
  private timer: NodeJS.Timeout | undefined;
  /** What the spool holds: kept in memory, so neither health nor the upkeep scans for it. */
  stats: SpoolStats = { events: 0, bytes: 0 };
  private oldestNs: bigint | null = null;
  /** Set when a recount after a commit failed: the next upkeep recounts first. */
  private stale = false;

  constructor(
    private readonly connection: StoreConnection,
    private readonly writes: WriteQueue,
    readonly limits: SpoolLimits,
  ) {}

  /** Counts what the store holds, then starts the once-a-second upkeep. */
  async start(): Promise<void> {
    await this.recount();
    const upkeep = (): Promise<unknown> =>
      this.writes
        .run(() => this.tick(), {
          housekeeping: true,
          // rows given up are host events no binding can claim any more: verify-host reads that
          changed: ({ unclaimed, overflowed }) => unclaimed + overflowed > 0,
        })
        .catch((error: unknown) => {
          log('warn', 'spool upkeep failed; it runs again in a second', { error: classifyStoreError(error) });
        });
    this.timer = setInterval(() => void upkeep(), 1000);
    this.timer.unref();
  }

  /** A commit spooled `events` rows of about `bytes`, ingested at `ingestedNs`. */
  added(events: number, bytes: number, ingestedNs: bigint): void {
    if (events <= 0) return;
    this.stats = { events: this.stats.events + events, bytes: this.stats.bytes + bytes };
    if (this.oldestNs === null || ingestedNs < this.oldestNs) this.oldestNs = ingestedNs;
  }

  /** Recounts from the store. */
  async recount(): Promise<void> {
    const { oldestNs, ...stats } = await readSpool(this.connection);
    this.stats = stats;
    this.oldestNs = oldestNs;
    this.stale = false;
  }

  /**
   * Recounts after a commit settled spooled rows (binds are rare next to events). Best effort: the
   * rows are committed whatever the totals say, so a failure is logged, and the next upkeep's recount
   * repairs the totals.
   */
  async refresh(): Promise<void> {
    await this.recount().catch((error: unknown) => {
      this.stale = true;
      log('warn', 'the spool totals could not be recounted after a commit', {
        error: classifyStoreError(error),
      });
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * One upkeep: give up on what outlived the TTL, then bound; SQL runs only when the totals in memory
   * call for it. A row is given up at most a slack (maxSlackMs, or a quarter of the TTL) after its TTL.
   */
  async tick(): Promise<{ unclaimed: number; overflowed: number }> {
    if (this.stale) await this.recount();
    const cutoffNs = (BigInt(Date.now()) - BigInt(this.limits.ttlMs)) * 1_000_000n;
    // rows are given up in batches, once the oldest has waited its TTL plus a slack: while a host's
    // activity streams into the spool, one upkeep a second would scan the pending rows each second
    const slackNs = BigInt(Math.min(maxSlackMs, Math.floor(this.limits.ttlMs / 4))) * 1_000_000n;
    let unclaimed = 0;
    if (this.oldestNs !== null && this.oldestNs < cutoffNs - slackNs) {
      unclaimed = await this.giveUp('unclaimed', sql`ingested_ns < ${cutoffNs}`);
      await this.recount();
    }
    if (this.stats.events <= this.limits.maxEvents && this.stats.bytes <= this.limits.maxBytes) {
      return { unclaimed, overflowed: 0 };
    }
    // the newest stay: counted from the newest back, the rows past either bound overflow
    const overBound = sql`id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER newest AS newer_events, sum(${rowBytes}) OVER newest AS newer_bytes
        FROM events WHERE spool_state = ${pending} WINDOW newest AS (ORDER BY seq DESC))
      WHERE newer_events > ${this.limits.maxEvents} OR newer_bytes > ${this.limits.maxBytes})`;
    const overflowed = await this.giveUp('overflowed', overBound, {
      max_events: this.limits.maxEvents,
      max_bytes: this.limits.maxBytes,
    });
    await this.recount();
    return { unclaimed, overflowed };
  }

  /**
   * Moves matching pending rows to `state` and counts them; with `lossDetail`, the rows are loss and
   * recorded as one coverage gap. Returns how many rows moved.
   */
  private async giveUp(
    state: 'unclaimed' | 'overflowed',
    where: Statement,
    lossDetail?: object,
  ): Promise<number> {
    const selection = sql`spool_state = ${pending} AND ${where}`;
    const [found] = await readRows<{ n: bigint; first: bigint | null; last: bigint | null; bytes: bigint }>(
      this.connection,
      sql`SELECT count(*) AS n, min(time_ns) AS first, max(time_ns) AS last, coalesce(sum(${rowBytes}), 0) AS bytes
          FROM events WHERE ${selection}`,
    );
    const count = Number(found!.n);
    if (count === 0) return 0;
    await inTransaction(this.connection, async () => {
      await execute(
        this.connection,
        sql`UPDATE events SET spool_state = ${spoolCode(state)} WHERE ${selection}`,
      );
      if (lossDetail !== undefined) {
        const id = 'gap_' + randomBytes(10).toString('hex');
        await execute(
          this.connection,
          sql`INSERT INTO coverage_gaps VALUES (${id}, NULL, 'spool_overflow', 'spool', ${found!.first}, ${found!.last},
              ${count}, ${Number(found!.bytes)}, ${JSON.stringify(lossDetail)}, ${BigInt(Date.now()) * 1_000_000n})`,
        );
      }
      await addCounters(this.connection, [{ source: 'spool', counter: state, value: count }]);
    });
    // at once, as the counters commit: a reader never sees the rows counted as given up and as spooled
    this.stats = {
      events: Math.max(0, this.stats.events - count),
      bytes: Math.max(0, this.stats.bytes - Number(found!.bytes)),
    };
    return count;
  }
}

/** What the spool holds now, and its oldest ingest instant: one aggregate over the spooled rows. */
async function readSpool(connection: StoreConnection): Promise<SpoolStats & { oldestNs: bigint | null }> {
  const [row] = await readRows<{ n: bigint; bytes: bigint; oldest: bigint | null }>(
    connection,
    sql`SELECT count(*) AS n, coalesce(sum(${rowBytes}), 0) AS bytes, min(ingested_ns) AS oldest
        FROM events WHERE spool_state = ${pending}`,
  );
  return { events: Number(row!.n), bytes: Number(row!.bytes), oldestNs: row!.oldest };
}
