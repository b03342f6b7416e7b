/**
 * Signed checkpoints, on the store thread: a run's `checkpoint` object names the heads of its
 * `context` and `event_batch` chains and counts what they hold, and is signed as a DSSE envelope
 * (ed25519). They are written after commits that move a run's chains, coalesced by a timer to at
 * most one per run per second (up to 10 s apart under sustained writes), on demand before a run is
 * verified, and when the store closes;
 * each round first seals the batches committed since the last (seal-batches.sql.ts).
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import { ProvdError } from '../shared/errors.js';
import { log } from '../shared/log.js';
import { execute, inTransaction, join, list, readRows, sql, unnested } from '../store/sql.js';
import { classifyStoreError } from '../store/store-error.js';
import type { WriteQueue } from '../store/write-queue.js';
import { checkpointPayloadType, signEnvelope } from './dsse.js';
import { appendToChains, type ChainEntry } from './graph-chains.sql.js';
import { sealedEventCounts, sealPendingBatches } from './seal-batches.sql.js';
import { StepTrace } from '../store/step-trace.js';
import type { SigningKey } from './signing-key.js';

/** How often runs whose chains moved get a checkpoint, at most. */
const intervalMs = 1000;
/**
 * The pause after a round that sealed something: while writes keep coming, a run's batches are
 * sealed and signed at most this long after their commit (plus a round); a reader that needs them
 * sealed (verify, GET /v1/graph/checkpoint, a watch's end) asks for a round and never waits for it.
 * A round costs ~30 ms of the store whatever it seals (its statements): beside a busy workload
 * (bench:sensor) a round each second was 2-3% of the workload's time; beside a watched
 * `/bin/true; sleep 0.05` loop (bench capture-cpu), 5 s apart, rounds took 600 ms of the store's
 * wall time against the commits' 900 (PROVD_TRACE_STEPS).
 */
const sealedPauseMs = 10_000;

/** Checkpoint addresses looked up per statement: an IN list of constants reads the objects' key. */
const addressesPerRead = 1000;

/** A reader waiting for a round to seal what was written before it asked. */
interface Waiter {
  wanted: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A chain head as a checkpoint names it. */
interface Head {
  hash: string;
  index: number;
}

/** Writes checkpoints for runs whose chains moved since their last one. */
export class Checkpointer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running = false;
  /** The write generation the last round saw (-1 after a failure: the next round retries). */
  private seen = -1;
  /** The generation the last successful round sealed through. */
  private completed = -1;
  private lastWorkStart = -Infinity;
  private waiters: Waiter[] = [];
  private keyStored = false;
  private readonly trace = new StepTrace('seal');

  constructor(
    private readonly connection: StoreConnection,
    private readonly writes: WriteQueue,
    private readonly key: SigningKey,
  ) {}

  /**
   * Starts the coalescing timer. A round runs only after something else was written since the last
   * one: nothing can be due otherwise, and an idle daemon then reads nothing each second.
   */
  start(): void {
    this.schedule(intervalMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.settleWaiters(this.seen, storeClosing(), true);
  }

  /**
   * Resolves once a round has sealed and signed everything written before the call (rejects when
   * that round fails). A reader waits for the regular round instead of writing one of its own: when
   * it waits, the next round runs at most `intervalMs` after the last one began, never sooner,
   * so however often readers ask, rounds run at most once a second.
   */
  async sealed(): Promise<void> {
    // a write under way is counted in `generation` only once it ends (a commit: after its COMMIT),
    // and its rows are readable from then on: wait for it, or a reader whose snapshot begins just
    // after it ends reads its events unsealed, dated before the reader asked (a false unsealed_event)
    await this.writes.ended();
    const wanted = this.writes.generation;
    if (this.completed >= wanted) return;
    if (this.stopped) throw storeClosing();
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ wanted, resolve, reject });
      if (!this.running) this.schedule(Math.max(0, this.lastWorkStart + intervalMs - performance.now()));
    });
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    this.running = true;
    let sealedSome = false;
    if (this.writes.generation !== this.seen) {
      let failure: unknown;
      await this.writes
        .run(async () => {
          this.seen = this.writes.generation; // this round's own write included
          const started = performance.now();
          this.lastWorkStart = started;
          this.trace.begin();
          const written = await this.writeDue(null);
          sealedSome = written > 0;
          this.trace.end({ checkpoints: written, work_ms: performance.now() - started });
        })
        .catch((error: unknown) => {
          failure = error;
          log('warn', 'writing checkpoints failed; they are written at the next round', {
            error: classifyStoreError(error),
          });
        });
      this.settleWaiters(this.seen, failure, false);
      if (failure !== undefined)
        this.seen = -1; // the next round tries again
      else this.completed = this.seen;
    } else this.settleWaiters(this.completed, undefined, false);
    this.running = false;
    if (this.stopped) return;
    // after a round that sealed, writes that keep coming wait for the next; a waiting reader does not
    this.schedule(this.waiters.length > 0 || !sealedSome ? intervalMs : sealedPauseMs);
  }

  /** Settles the waiters a round covering generation `through` answers: all of them when stopping. */
  private settleWaiters(through: number, failure: unknown, all: boolean): void {
    const left: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (!all && waiter.wanted > through) left.push(waiter);
      else if (failure !== undefined) waiter.reject(failure);
      else waiter.resolve();
    }
    this.waiters = left;
  }

  /**
   * Seals every pending batch (seal-batches.sql.ts), then checkpoints every due run, or only `runIds`
   * when given, in one transaction; call inside the write queue. Returns how many it checkpointed.
   */
  async writeDue(runIds: readonly string[] | null): Promise<number> {
    const written = await inTransaction(this.connection, async () => {
      await this.trace.time('seal_batches', () => sealPendingBatches(this.connection));
      const due = await this.trace.time('due_runs', () => this.dueRuns(runIds));
      if (due.size === 0) return 0;
      if (!this.keyStored)
        await execute(
          this.connection,
          sql`INSERT INTO signing_keys VALUES (${this.key.keyId}, ${this.key.publicKeyPem}, ${nowNs()})
              ON CONFLICT DO NOTHING`,
        );
      const events = await this.trace.time('event_counts', () =>
        sealedEventCounts(this.connection, [...due.keys()]),
      );
      const sealed = await this.trace.time('append', () =>
        appendToChains(
          this.connection,
          [...due].map(([runId, heads]) => checkpointEntry(runId, heads, events.get(runId) ?? 0)),
        ),
      );
      const envelopes = sealed.map((object) =>
        JSON.stringify(
          signEnvelope(checkpointPayloadType, Buffer.from(object.body), this.key.privateKey, this.key.keyId),
        ),
      );
      // one statement for every run's checkpoint: one each held the write queue ~3 ms a run
      await this.trace.time('insert_checkpoints', () =>
        execute(
          this.connection,
          sql`INSERT INTO checkpoints SELECT ${unnested(
            [sealed.map((object) => object.hash), VARCHAR],
            [sealed.map((object) => object.runId), VARCHAR],
            [sealed.map((object) => BigInt(object.chainIndex ?? 0)), BIGINT],
            [envelopes, VARCHAR],
          )}, ${this.key.keyId}, ${nowNs()}`,
        ),
      );
      return due.size;
    });
    if (written > 0) this.keyStored = true;
    return written;
  }

  /**
   * Runs (all, or of `only`) whose context or batch heads differ from what their last checkpoint
   * names, with all their heads. Only runs with a head moved at or after their checkpoint are read,
   * and their checkpoints are looked up by address: joined to the whole objects table, every round
   * would read all of it (13 ms at 1,000,000 objects, growing with the store).
   */
  private async dueRuns(only: readonly string[] | null): Promise<Map<string, Record<string, Head>>> {
    const filter = only === null ? sql`true` : sql`h.run_id IN (SELECT unnest(${list([...only], VARCHAR)}))`;
    const rows = await readRows<{
      run_id: string;
      chain: string;
      hash: string;
      chain_index: bigint;
      checkpoint: string | null;
    }>(
      this.connection,
      sql`SELECT h.run_id, h.chain, h.hash, h.chain_index, c.hash AS checkpoint
          FROM run_heads h
          LEFT JOIN run_heads c ON c.run_id = h.run_id AND c.chain = 'checkpoint'
          WHERE h.chain <> 'checkpoint' AND ${filter} AND h.run_id IN (
            SELECT m.run_id FROM run_heads m
            LEFT JOIN run_heads mc ON mc.run_id = m.run_id AND mc.chain = 'checkpoint'
            WHERE m.chain <> 'checkpoint' AND (mc.hash IS NULL OR m.updated_ns >= mc.updated_ns))`,
    );
    const covered = await this.coveredHeads([
      ...new Set(rows.flatMap((row) => (row.checkpoint === null ? [] : [row.checkpoint]))),
    ]);
    const heads = new Map<string, Record<string, Head>>();
    const moved = new Set<string>();
    for (const row of rows) {
      const ofRun = heads.get(row.run_id) ?? {};
      ofRun[row.chain] = { hash: row.hash, index: Number(row.chain_index) };
      heads.set(row.run_id, ofRun);
      const named = row.checkpoint === null ? undefined : covered.get(row.checkpoint)?.[row.chain]?.hash;
      if (named !== row.hash) moved.add(row.run_id);
    }
    return new Map([...heads].filter(([runId]) => moved.has(runId)));
  }

  /** The heads each checkpoint object names, by its address; read through the objects' key, a chunk of addresses at a time. */
  private async coveredHeads(checkpoints: readonly string[]): Promise<Map<string, Record<string, Head>>> {
    const covered = new Map<string, Record<string, Head>>();
    for (let from = 0; from < checkpoints.length; from += addressesPerRead) {
      const chunk = checkpoints.slice(from, from + addressesPerRead);
      const rows = await readRows<{ hash: string; heads: string | null }>(
        this.connection,
        sql`SELECT hash, json_extract(body, '$.payload.heads')::VARCHAR AS heads FROM objects
            WHERE hash IN (${join(
              chunk.map((hash) => sql`${hash}`),
              ', ',
            )})`,
      );
      for (const row of rows)
        covered.set(row.hash, row.heads === null ? {} : (JSON.parse(row.heads) as Record<string, Head>));
    }
    return covered;
  }
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The checkpoint a run's chain appends: its heads, and what they count (`events`: sealed in its batches). */
function checkpointEntry(runId: string, heads: Record<string, Head>, events: number): ChainEntry {
  return {
    runId,
    chain: 'checkpoint',
    build: (previous: string, index: number) => ({
      kind: 'checkpoint',
      run_id: runId,
      parents: [previous, ...Object.values(heads).map((head) => head.hash)],
      payload: {
        index,
        heads,
        counts: {
          context_objects: (heads['context']?.index ?? -1) + 1,
          event_batches: (heads['event_batch']?.index ?? -1) + 1,
          events,
        },
      },
    }),
  };
}

/** What a reader waiting for a round is told once the store closes. */
function storeClosing(): ProvdError {
  return new ProvdError('PROVD_ERR_STORE_STOPPED', 'the store is closing: nothing more is sealed');
}
