/**
 * Hook events to store, grouped into write transactions on the store thread: the events that
 * arrive while a write runs (other agents', or a PostToolUse right behind its PreToolUse, queued
 * after its answer) join the next transaction, in arrival order, instead of one transaction each.
 * Each caller still gets its own result. A batch that fails is rolled back whole and its events
 * are stored again one by one, so a hostile or broken event fails alone and its neighbours are
 * kept; each such fallback is logged and counted (`fallbacks`), and the events stored so say it
 * (`stored_alone`: health's hooks.stored_alone counts them). After the commit, the batch's tool
 * calls tie the events committed before them, once per run (deps.tieHookToolCalls).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { log } from '../../shared/log.js';
import { classifyStoreError } from '../../store/store-error.js';
import type { WriteQueue } from '../../store/write-queue.js';
import { writeHookEvents, type HookStored, type HookWrite, type HookWritten } from './hook-store.sql.js';
import type { RecordToolCallDecision } from './tool-call-decision.js';

interface Waiting {
  write: HookWrite;
  resolve: (written: HookWritten) => void;
  reject: (error: unknown) => void;
}

/** Groups hook writes into transactions of the write queue; see the file's comment. */
export class HookBatcher {
  private waiting: Waiting[] = [];
  private queued = false;
  /** Batches taken from the queue (each one transaction, unless it fell back). */
  batches = 0;
  /** Batches that failed whole and were stored again event by event. */
  fallbacks = 0;

  constructor(
    private readonly writer: StoreConnection,
    private readonly writes: WriteQueue,
    private readonly tie: (runId: string, sinceNs: bigint) => Promise<void>,
    private readonly recordDecision: RecordToolCallDecision,
  ) {}

  /** Stores `write` in the next batch; resolves once it is committed and its run's events tied. */
  store(write: HookWrite): Promise<HookWritten> {
    return new Promise<HookWritten>((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
      if (this.queued) return;
      this.queued = true;
      // the batch is taken when the queue reaches it: what arrives until then joins it
      void this.writes.run(() => this.storeWaiting());
    });
  }

  private async storeWaiting(): Promise<void> {
    this.queued = false;
    this.batches++;
    const batch = this.waiting;
    this.waiting = [];
    // every caller is answered, whatever fails (a caller left waiting would hold its agent's hook)
    const stored = await this.storeBatch(batch).catch((error: unknown) => batch.map(() => ({ error })));
    // a tie failing leaves the events with their binding: logged, never failing what was committed
    await this.tieCalls(batch, stored).catch((error: unknown) =>
      log('warn', 'tying events to their hook tool calls failed; they keep their binding', {
        error: classifyStoreError(error),
      }),
    );
    for (const [i, { resolve, reject }] of batch.entries()) {
      const result = stored[i]!;
      if ('error' in result) reject(result.error);
      else resolve(result.written);
    }
  }

  /** The batch in one transaction; when that fails and it held more than one, each alone. */
  private async storeBatch(batch: readonly Waiting[]): Promise<(HookStored | { error: unknown })[]> {
    try {
      return await writeHookEvents(
        this.writer,
        batch.map(({ write }) => write),
        this.recordDecision,
      );
    } catch (error) {
      if (batch.length === 1) return [{ error }];
      this.fallbacks++;
      log('warn', 'a batch of hook events failed; storing its events one by one', {
        events: batch.length,
        fallbacks: this.fallbacks,
        error: classifyStoreError(error),
      });
    }
    const stored: (HookStored | { error: unknown })[] = [];
    for (const { write } of batch)
      stored.push(
        await writeHookEvents(this.writer, [write], this.recordDecision).then(
          ([one]) => ({ ...one!, written: { ...one!.written, stored_alone: true as const } }),
          (error: unknown) => ({ error }),
        ),
      );
    return stored;
  }

  /** Ties each run's events to the batch's tool calls, from the earliest call's start. */
  private async tieCalls(
    batch: readonly Waiting[],
    stored: readonly (HookStored | { error: unknown })[],
  ): Promise<void> {
    const since = new Map<string, bigint>();
    for (const [i, result] of stored.entries()) {
      if ('error' in result || result.since_ns === null) continue;
      const runId = batch[i]!.write.run_id;
      const earlier = since.get(runId);
      if (earlier === undefined || result.since_ns < earlier) since.set(runId, result.since_ns);
    }
    for (const [runId, sinceNs] of since) await this.tie(runId, sinceNs);
  }
}
