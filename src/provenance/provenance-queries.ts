/**
 * The store query kinds of the provenance domain, with their params and results: the main thread
 * sends them through its StoreClient, provenance-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';

export type ProvenanceQueries = {
  /** The run objects' count: a placeholder kind until the graph's queries land (issue 7). */
  graph_stats: QuerySpec<Record<string, never>, { objects: number }>;
};
