/**
 * The provenance domain on the store thread: the graph's queries (verify, and later explain,
 * timeline, summary, records, keys), registered with the store actor as one module. Sealing happens
 * inside the telemetry commits (they call seal-batches.ts).
 */
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import type { ProvenanceQueries } from './provenance-queries.js';
import { sealLegacyRuns } from './seal-legacy.js';
import type { EventRecheck } from './verify-events.js';
import { verifyRun } from './verify.query.js';

/** What the provenance module needs to start. */
export interface ProvenanceStoreInit {
  /** The data directory (signing keys live there). */
  dataDir: string;
}

/** What other domains lend the provenance module, wired by the store worker. */
export interface ProvenanceDeps {
  /** Recomputes an event's hash from its stored row (the telemetry domain owns the event format). */
  eventRecheck: EventRecheck;
}

/** Starts the provenance module on an open, migrated store. */
export async function startProvenanceStore(
  context: StoreContext,
  _init: ProvenanceStoreInit,
  deps: ProvenanceDeps,
): Promise<StoreModule> {
  await sealLegacyRuns(context.writer, context.writes);
  const queries: QueryHandlers<ProvenanceQueries> = {
    verify: (params) => verifyRun(context.reader(), params, deps.eventRecheck),
  };
  return { name: 'provenance', queries };
}
