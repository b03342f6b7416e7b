/**
 * The provenance domain on the store thread: the graph's queries (verify, explain, timeline,
 * summary, records, keys), registered with the store actor as one module. Sealing happens inside
 * the telemetry commits (they call seal-batches.ts).
 */
import { readRows, sql } from '../store/sql.js';
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import type { ProvenanceQueries } from './provenance-queries.js';
import { sealLegacyRuns } from './seal-legacy.js';

/** What the provenance module needs to start. */
export interface ProvenanceStoreInit {
  /** The data directory (signing keys live there). */
  dataDir: string;
}

/** Starts the provenance module on an open, migrated store. */
export async function startProvenanceStore(
  context: StoreContext,
  _init: ProvenanceStoreInit,
): Promise<StoreModule> {
  await sealLegacyRuns(context.writer, context.writes);
  const queries: QueryHandlers<ProvenanceQueries> = {
    graph_stats: async () => {
      const [row] = await readRows<{ n: bigint }>(context.reader(), sql`SELECT count(*) AS n FROM objects`);
      return JSON.stringify({ objects: Number(row!.n) });
    },
  };
  return { name: 'provenance', queries };
}
