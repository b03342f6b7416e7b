/**
 * The store query kinds of the telemetry domain: the main thread sends them through its
 * StoreClient; their kind map, TelemetryKinds, is read from these handlers' types.
 */
import { jsonText } from '../store/json-text.js';
import type { NoParams, KindsOf, QueryRequest, StoreContext } from '../store/store-module.js';
import type { IngestCommit } from './batch-commit.js';
import type { Binding } from './binding.js';
import type { BindingStore } from './binding-store.sql.js';
import { explainCorrelations, type CorrelationsParams } from './correlations.sql.js';
import type { EventCommitter } from './event-commit.sql.js';
import { listEvents, type EventsParams } from './events.sql.js';
import { listHostEvents, type HostEventsParams } from './host-events.sql.js';
import { recordHookLoss, type HookLoss } from './hook-loss.sql.js';
import { producerHealth, type ProducerHealthParams } from './producer-health.sql.js';
import { listRuns, type RunsParams } from './runs.sql.js';
import type { Spool } from './spool.sql.js';
import type { SpoolLimits } from './spool-limits.js';
import { summarizeRun, type SummaryParams } from './summary.sql.js';
import { recordUncleanStop, type UncleanStop } from './unclean-stop.sql.js';
import { listWindows, type WindowsParams } from './windows.sql.js';

/** What the telemetry handlers answer with, made by the module at start. */
export interface TelemetryParts {
  committer: EventCommitter;
  bindings: BindingStore;
  spool: Spool;
  spoolLimits: SpoolLimits;
}

/** The telemetry domain's handlers, by kind. */
export function telemetryHandlers(context: StoreContext, parts: TelemetryParts) {
  const { committer, bindings, spool } = parts;
  const { formatVersion } = context;
  return {
    /** Commits one ingest request, all or nothing; a cancelled one is rolled back. */
    commit: async (commit: IngestCommit, { signal }: QueryRequest) =>
      jsonText(await committer.commit(commit, signal)),
    /** Persists a binding; `recorrelated` counts spooled events it attributed at once. */
    bind: async ({ binding }: { binding: Binding }) => {
      const recorrelated = await context.writes.run(async () => {
        const count = await bindings.bind(binding);
        // committed: from here on the bind must answer success, or the workers never learn of it
        if (count > 0) await spool.refresh();
        return count;
      });
      return jsonText({ recorrelated });
    },
    /** Every binding as a JSON record, in arrival order (to fill the workers' BindingLog at start). */
    bindings: (_: NoParams) => Promise.resolve(jsonText({ records: bindings.records() })),
    events: (params: EventsParams) => listEvents(context.reader(), params, formatVersion, committer.endSeq),
    hostEvents: (params: HostEventsParams) =>
      listHostEvents(context.reader(), params, formatVersion, committer.endSeq),
    windows: (params: WindowsParams) => listWindows(context.reader(), params, formatVersion),
    correlations: (params: CorrelationsParams) => explainCorrelations(context.reader(), params),
    producerHealth: (params: ProducerHealthParams) =>
      producerHealth(context.reader(), params, parts.spoolLimits, () => spool.stats),
    runs: (params: RunsParams) => listRuns(context.reader(), params, formatVersion),
    summary: (params: SummaryParams) => summarizeRun(context.reader(), params),
    /** Hook events that reached no daemon (the hook spool) and requests the hook socket refused. */
    hookLoss: async (loss: HookLoss) =>
      jsonText(await context.writes.run(() => recordHookLoss(context.writer, loss))),
    /** A daemon before this one was killed while its sensor ran: its uncommitted records are a gap. */
    uncleanStop: async (stop: UncleanStop) =>
      jsonText(await context.writes.run(() => recordUncleanStop(context.writer, stop))),
  };
}

/** The telemetry domain's kinds: params and result of each, from its handler. */
export type TelemetryKinds = KindsOf<ReturnType<typeof telemetryHandlers>>;
