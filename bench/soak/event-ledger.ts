/**
 * The ledger of a producer that must lose nothing: every event it sends is unique (its `comm` names
 * it), each batch carries an Idempotency-Key, and what the daemon acknowledged (`accepted` of an
 * answered request) is written down. At the end the run's stored events are counted by name:
 * an acknowledged event stored zero times is lost, one stored more than once is duplicated.
 */
import { randomBytes } from 'node:crypto';
import { nativeLine } from '../../test/support/telemetry.js';
import type { SoakApi } from './soak-api.js';

/** One batch as a producer sends (and resends) it. */
export interface LedgerBatch {
  key: string;
  body: Buffer;
  names: string[];
}

/** What the count of stored events found. */
export interface LedgerCheck {
  acknowledged: number;
  /** Acknowledged events not stored. */
  lost: number;
  /** Extra copies of stored events (an event stored three times counts 2). */
  duplicated: number;
  /** Events stored that no answer acknowledged (a request answered by nobody, as a kill allows). */
  unacknowledgedStored: number;
  /** Batches answered with fewer accepted events than they held (every line is valid). */
  shortBatches: number;
}

/** A producer's ledger for one run. */
export class EventLedger {
  private readonly acknowledged = new Set<string>();
  private readonly sent = new Set<string>();
  private shortBatches = 0;

  constructor(
    /** The run the events are bound to. */
    readonly run: string,
    /** Prefix of every event name and key (unique per phase). */
    private readonly prefix: string,
  ) {}

  /**
   * Batch `n` of producer `producer`: `size` unique events from `cgroup`, each with an argument of
   * `pad` random hex characters (to fill a disk: they do not compress, and no signal counts them).
   */
  batch(producer: number, n: number, size: number, cgroup: string, pad = 0): LedgerBatch {
    const names: string[] = [];
    const lines: string[] = [];
    for (let i = 0; i < size; i++) {
      const name = `${this.prefix}.${producer}.${n}.${i}`;
      names.push(name);
      lines.push(
        nativeLine({
          comm: name,
          cgroup_id: cgroup,
          pid: 10_000 + producer,
          tgid: 10_000 + producer,
          path: `/soak/${name}`,
          ...(pad > 0 && { argv: ['soak', randomBytes(Math.ceil(pad / 2)).toString('hex')] }),
          timestamp: `2026-01-01T00:${String(n % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${i}Z`,
        }),
      );
    }
    for (const name of names) this.sent.add(name);
    return { key: `${this.prefix}-${producer}-${n}`, body: Buffer.from(lines.join('\n') + '\n'), names };
  }

  /** Writes down an answered batch: `accepted` of its events are the daemon's to keep. */
  acknowledge(batch: LedgerBatch, accepted: number): void {
    if (accepted !== batch.names.length) this.shortBatches++;
    for (const name of batch.names.slice(0, accepted)) this.acknowledged.add(name);
  }

  get acknowledgedCount(): number {
    return this.acknowledged.size;
  }

  /** Counts what the daemon stored for the run against what it acknowledged. */
  async check(api: SoakApi): Promise<LedgerCheck> {
    const stored = new Map<string, number>();
    for (const event of await api.pageAll(
      `/v1/telemetry/events?run=${encodeURIComponent(this.run)}`,
      'events',
    )) {
      const name = event['comm'];
      if (typeof name === 'string' && this.sent.has(name)) stored.set(name, (stored.get(name) ?? 0) + 1);
    }
    let lost = 0;
    for (const name of this.acknowledged) if (!stored.has(name)) lost++;
    let duplicated = 0;
    let unacknowledgedStored = 0;
    for (const [name, count] of stored) {
      duplicated += count - 1;
      if (!this.acknowledged.has(name)) unacknowledgedStored++;
    }
    return {
      acknowledged: this.acknowledged.size,
      lost,
      duplicated,
      unacknowledgedStored,
      shortBatches: this.shortBatches,
    };
  }
}
