/**
 * Where each ingest batch's events were put, kept in memory so explain finds an event without
 * first asking the store: the seq range its commit gave them (event_batches) and the time spans of
 * those the spool settled later (settled_ranges), as the two tables hold them. Loaded once when the
 * store opens, then told of every commit and settlement by the writer.
 *
 * A place is only where explain looks first: it reads an event by its id within the place and, if
 * not found there, in the whole table, so a place that is wrong (a rolled-back commit) or missing
 * costs time, never an answer. Past `maxBatches` the oldest are forgotten and the store is asked for
 * any batch not kept.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { readRows, sql } from '../store/sql.js';

/** A batch's events: at seq [from, to] (committed), or settled with time_ns in [from, to]. */
export interface BatchPlace {
  committed: boolean;
  from: bigint;
  to: bigint;
}

/**
 * Batches kept: about 370 bytes each in V8 (id, array, bigints), so at most ~18 MB. The sensor's
 * commits linger up to a second, so this holds about half a day of them; an HTTP ingest of 10M
 * events makes fewer than 10,000.
 */
const defaultMaxBatches = 50_000;

/** The places of the batches of one store, by batch id. */
export class BatchPlaces {
  private readonly places = new Map<string, BatchPlace[]>();
  /** Whether every batch of the store is kept: then a batch not kept has no place. */
  private complete = false;

  constructor(private readonly maxBatches = defaultMaxBatches) {}

  /** Reads every place the store holds; until it has, every batch is looked up in the store. */
  async load(connection: StoreConnection): Promise<void> {
    const [count] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT (SELECT count(*) FROM event_batches) + (SELECT count(*) FROM settled_ranges) AS n`,
    );
    // too many to keep: the store is asked for those from before, and told of those from now on
    if (count!.n > BigInt(this.maxBatches)) return;
    const rows = await readRows<{ batch_id: string; committed: boolean; from: bigint; to: bigint }>(
      connection,
      sql`SELECT batch_id, true AS committed, seq_from AS "from", seq_to - 1 AS "to" FROM event_batches
            WHERE seq_from IS NOT NULL
          UNION ALL SELECT batch_id, false, time_from_ns, time_to_ns FROM settled_ranges`,
    );
    this.places.clear();
    this.complete = true;
    for (const { batch_id, ...place } of rows) this.add(batch_id, place);
  }

  /** Notes where a commit put `batchId`'s events: seq [seqFrom, seqTo). */
  committed(batchId: string, seqFrom: bigint, seqTo: bigint): void {
    this.add(batchId, { committed: true, from: seqFrom, to: seqTo - 1n });
  }

  /** Notes that the spool settled events of `batchId` whose time_ns lie in [fromNs, toNs]. */
  settled(batchId: string, fromNs: bigint, toNs: bigint): void {
    this.add(batchId, { committed: false, from: fromNs, to: toNs });
  }

  /** After a rolled-back write: what it noted may never have been stored, so a missing batch is asked for. */
  forgetCompleteness(): void {
    this.complete = false;
  }

  /** The places of `batchId`; undefined when only the store can tell. */
  placesOf(batchId: string): readonly BatchPlace[] | undefined {
    return this.places.get(batchId) ?? (this.complete ? [] : undefined);
  }

  private add(batchId: string, place: BatchPlace): void {
    const kept = this.places.get(batchId);
    if (kept === undefined) this.places.set(batchId, [place]);
    else kept.push(place);
    if (this.places.size > this.maxBatches) {
      this.places.delete(this.places.keys().next().value!);
      this.complete = false;
    }
  }
}
