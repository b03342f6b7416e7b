/**
 * The read models on the store thread: the application context, the timeline, explain and search,
 * views over what the domains below stored, registered with the store actor as one module. They
 * write nothing; what they read of the write side's state comes in ViewsDeps.
 */
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import type { BatchPlaces } from '../telemetry/batch-places.js';
import { readArtifact } from './context/artifact.query.js';
import { compareRecords } from './context/compare-records.query.js';
import { compareContexts } from './context/context-compare.query.js';
import { readContextContent } from './context/context-content.query.js';
import { listContextEntries } from './context/context-entries.query.js';
import { readContextLinks } from './context/context-links.query.js';
import { overviewContext } from './context/context-overview.query.js';
import { explain } from './explain/explain.query.js';
import { searchSources } from './search/search-sources.query.js';
import { timelineCausality } from './timeline/timeline-causality.query.js';
import { listTimeline } from './timeline/timeline-table.query.js';
import type { ViewsQueries } from './views-queries.js';

/** What the telemetry module lends the views, wired by the store worker. */
export interface ViewsDeps {
  /** Folds every committed event into the process rollup; call before reading it. */
  catchUpRollup(): Promise<void>;
  /** The first position the rollup may not hold yet, or null when it holds every committed event. */
  unfoldedFrom(): bigint | null;
  /** The next position the store will hand out. */
  endSeq(): bigint;
  /** Where each sealed batch's events are (spares explain a read). */
  places: BatchPlaces;
}

/** Starts the views module. */
export function startViewsStore(context: StoreContext, deps: ViewsDeps): StoreModule {
  const queries: QueryHandlers<ViewsQueries> = {
    explain: (params) =>
      explain(context.reader(), context.reader(), params, deps.unfoldedFrom(), deps.places),
    timeline_table: (params) =>
      listTimeline(context.reader(), context.reader(), params, context.formatVersion),
    timeline_causality: async (params) => {
      await deps.catchUpRollup();
      return timelineCausality(context.reader(), context.reader(), params);
    },
    context_overview: async (params) => JSON.stringify(await overviewContext(context.reader(), params)),
    context_entries: async (params) =>
      JSON.stringify(await listContextEntries(context.reader(), params, context.formatVersion)),
    context_content: async (params) => JSON.stringify(await readContextContent(context.reader(), params)),
    context_compare: async (params) => JSON.stringify(await compareContexts(context.reader(), params)),
    context_links: async (params) => JSON.stringify(await readContextLinks(context.reader(), params)),
    compare_records: async (params) => JSON.stringify(await compareRecords(context.reader(), params)),
    artifact: async (params) => JSON.stringify(await readArtifact(context.reader(), params)),
    search_sources: async (params) =>
      JSON.stringify(await searchSources(context.reader(), params, context.formatVersion, deps.endSeq())),
  };
  return { name: 'views', queries };
}
