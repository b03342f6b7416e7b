/**
 * The telemetry domain on the store thread: event commits, bindings, the spool, the idempotency
 * ledger, and the queries over events, registered with the store actor as one module (the read
 * models over them are src/views).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConnection } from '../store/store-connection.js';
import type { EventVerdict } from '../shared/event-verdict.js';
import { log } from '../shared/log.js';
import { inTransaction, onRollback, readRows, sql } from '../store/sql.js';
import { BatchPlaces } from './batch-places.sql.js';
import { classifyStoreError } from '../store/store-error.js';
import type { StoreContext } from '../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../store/store-modules.js';
import type { EventRecheck } from '../provenance/verify-events.sql.js';
import { rehashStoredEvent, storedEventColumns, storedEventContentSql } from './stored-event-hash.js';
import { BindingStore } from './binding-store.sql.js';
import { EventCommitter, type CommitFaults } from './event-commit.sql.js';
import { IngestLedger } from './ingest-ledger.sql.js';
import { Spool, type SpoolStats } from './spool.sql.js';
import type { SpoolLimits } from './spool-limits.js';
import { telemetryHandlers } from './telemetry-kinds.js';
import { fillLoaderLocaleOpens } from './loader-opens.sql.js';
import { ProcessRollup, type RollupFold } from './process-rollup.sql.js';
import { HookRuns, hasUntiedEvents, tieToolCallEvents, type TieScope } from './tool-call-tie.sql.js';

/** What the telemetry module needs to start. */
export interface TelemetryStoreInit {
  /** Where normalize workers write row files; leftovers from a crash are removed at start. */
  spoolDir: string;
  spool: SpoolLimits;
  faults: CommitFaults;
}

/** What other domains give the telemetry module: their parts in its commits and its rollup. */
export interface TelemetryDeps {
  /**
   * Stores the policy's decisions on committed events, in their transaction (the security domain),
   * through a file it may write at `scratchFile` (in the spool directory) and removes.
   */
  recordVerdicts: (
    connection: StoreConnection,
    verdicts: readonly EventVerdict[],
    seqs: readonly bigint[],
    scratchFile: string,
  ) => Promise<void>;
  /** Gives the decisions of spooled events that joined a run that run; returns their leaves by event id. */
  settleDecisions: (
    connection: StoreConnection,
    runId: string,
    events: readonly { id: string; seq: bigint }[],
  ) => Promise<Map<string, string>>;
  /** Per-run tables folded in with the process rollup (the security domain's signal values). */
  rollupFolds: readonly RollupFold[];
}

/** What the telemetry module lends the modules started after it. */
export interface TelemetryLends {
  /** Folds every committed event into the rollup (and its folds); call before reading them. */
  catchUpRollup(): Promise<void>;
  /** The next position the store will hand out: nothing is stored at or beyond it. */
  endSeq(): bigint;
  /** The first position the rollup may not hold yet, or null when it holds every committed event. */
  unfoldedFrom(): bigint | null;
  /** Where each sealed batch's events are. */
  places: BatchPlaces;
  /** The events and bytes waiting in the spool now (kept in memory). */
  spoolStats(): SpoolStats;
  /**
   * Hook tool calls of the run were stored (PreToolUse or PostToolUse): ties the run's events since
   * `sinceNs`, the earliest of those calls' starts (tool-call-tie.sql.ts); call in the write queue,
   * after the hooks' write.
   */
  tieHookToolCalls(runId: string, sinceNs: bigint): Promise<void>;
}

/** How often keys past retention are forgotten. */
const ledgerPurgeMs = 60_000;

/** What the telemetry module needs from the board: its init data and other domains' participants. */
export type TelemetryNeeds = TelemetryDeps & { telemetry: TelemetryStoreInit };

/** Starts the telemetry module on an open, migrated store. */
async function startTelemetryStore(
  context: StoreContext,
  { telemetry: init, ...deps }: TelemetryNeeds,
): Promise<StartedModule<TelemetryLends>> {
  const { writer, writes } = context;
  // row files left by a crash belong to requests that were never answered: nothing to recover
  mkdirSync(init.spoolDir, { recursive: true, mode: 0o700 });
  for (const file of readdirSync(init.spoolDir)) rmSync(join(init.spoolDir, file), { force: true });

  const [next] = await readRows<{ next: bigint }>(
    writer,
    sql`SELECT coalesce(max(seq) + 1, 0) AS next FROM events`,
  );
  // events stored before the loader_locale column (sql/017) are judged once, here
  await fillLoaderLocaleOpens(writer);
  // where each batch's events are, for explain: loaded before any write, then told of each one
  const places = new BatchPlaces();
  await places.load(writer);
  onRollback(writer, () => places.forgetCompleteness());
  const hookRuns = new HookRuns();
  await hookRuns.load(writer);
  // a tie failing leaves the events with their binding: logged, never failing what committed them
  const tie = (runIds: readonly string[], scope: TieScope): Promise<void> =>
    runIds.length === 0
      ? Promise.resolve()
      : inTransaction(writer, () => tieToolCallEvents(writer, runIds, scope)).then(
          () => undefined,
          (error: unknown) =>
            log('warn', 'tying events to their tool calls failed; they keep their binding', {
              error: classifyStoreError(error),
            }),
        );
  const bindings: BindingStore = new BindingStore(
    writer,
    (count) => committer.allocateSeq(count),
    (runId, events) => deps.settleDecisions(writer, runId, events),
    places,
    (runId, fromSeq, toSeq) => tie(hookRuns.among([runId]), { fromSeq, toSeq }),
  );
  const spool = new Spool(writer, writes, init.spool);
  const ledger = new IngestLedger(writer);
  const committer: EventCommitter = new EventCommitter(
    writer,
    writes,
    next!.next,
    ledger,
    {
      settleLagging: (batches, fromSeq) => bindings.settleLagging(batches, fromSeq),
      // commits run one at a time: one scratch file serves them all
      recordVerdicts: (verdicts, seqs) =>
        deps.recordVerdicts(writer, verdicts, seqs, join(init.spoolDir, 'decisions.csv')),
      placed: (batchId, seqFrom, seqTo) => places.committed(batchId, seqFrom, seqTo),
      // settled rows may be of any run: then every hook run is looked at
      tieToolCalls: (batches, settled, fromSeq, toSeq) =>
        tie(
          settled
            ? hookRuns.all()
            : hookRuns.among(batches.flatMap((batch) => batch.digests.map((d) => d.runId))),
          { fromSeq, toSeq },
        ),
      async committed(batches, settled) {
        for (const batch of batches) {
          const stillPending = batch.pending - (settled.get(batch.batchId) ?? 0);
          spool.added(
            stillPending,
            (batch.pendingBytes * stillPending) / Math.max(1, batch.pending),
            batch.ingestedNs,
          );
        }
        if (settled.size > 0) await spool.refresh();
      },
    },
    init.faults,
  );
  await bindings.load();
  const rollup = new ProcessRollup(
    writer,
    writes,
    () => committer.endSeq,
    () => context.activeQueries(),
    deps.rollupFolds,
  );
  await rollup.start();
  await spool.start();
  const purgeLedger = (): Promise<unknown> =>
    writes
      .run(() => ledger.purge(), { housekeeping: true })
      .catch((error: unknown) => {
        log('warn', 'forgetting expired Idempotency-Keys failed; it runs again in a minute', {
          error: classifyStoreError(error),
        });
      });
  const purge = setInterval(() => void purgeLedger(), ledgerPurgeMs);
  purge.unref();

  const queries = telemetryHandlers(context, { committer, bindings, spool, spoolLimits: init.spool });
  return {
    queries,
    lends: {
      catchUpRollup: () => rollup.catchUp(),
      unfoldedFrom: () => rollup.unfoldedFrom(),
      places,
      endSeq: () => committer.endSeq,
      spoolStats: () => spool.stats,
      async tieHookToolCalls(runId, sinceNs) {
        hookRuns.add(runId);
        // one read, and no transaction, when no event is left to tie (no sensor, or none yet)
        if (await hasUntiedEvents(writer, runId, sinceNs)) await tie([runId], { runId, sinceNs });
      },
    },
    async healthFacts(connection) {
      const seen = await readRows(connection, sql`SELECT 1 FROM events LIMIT 1`);
      return { spool: spool.stats, events_seen: seen.length > 0 };
    },
    flush: () => committer.flush(),
    stop() {
      rollup.stop();
      spool.stop();
      clearInterval(purge);
    },
  };
}

/**
 * The telemetry domain on the store thread. It gives verify the rehash of a stored event (the
 * event format is telemetry's) and lends its rollup catch-up and positions to the read sides.
 */
export const telemetryModule = {
  name: 'telemetry',
  participants: {
    eventRecheck: {
      columns: storedEventColumns,
      contentSql: storedEventContentSql,
      rehash: rehashStoredEvent,
    },
  },
  start: startTelemetryStore,
} satisfies StoreModuleSpec<TelemetryNeeds, { eventRecheck: EventRecheck }, TelemetryLends>;
