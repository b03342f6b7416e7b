/**
 * The store query kinds of the read models: views over what telemetry, provenance and security
 * stored (the application context, the timeline, explain, search). Each answers its finished
 * response body. The main thread sends them through its StoreClient; their kind map, ViewsKinds,
 * is read from these handlers' types.
 */
import type { KindsOf, NoParams, StoreContext } from '../store/store-module.js';
import { jsonText } from '../store/json-text.js';
import { readArtifact, type ArtifactParams } from './context/artifact.sql.js';
import { compareRecords, type CompareRecordsParams } from './context/compare-records.js';
import { compareContexts, type ContextCompareParams } from './context/context-compare.js';
import { readContextContent, type ContextContentParams } from './context/context-content.sql.js';
import { listContextEntries, type ContextEntriesParams } from './context/context-entries.sql.js';
import { readContextLinks, type ContextLinksParams } from './context/context-links.sql.js';
import { overviewContext, type ContextOverviewParams } from './context/context-overview.sql.js';
import { explain, type ExplainParams } from './explain/explain.js';
import { readMetricsFacts } from './metrics/metrics-facts.sql.js';
import { searchSources, type SearchParams } from './search/search-sources.sql.js';
import { timelineCausality, type TimelineCausalityParams } from './timeline/causality-tree.js';
import { timelineSession, type TimelineSessionParams } from './timeline/session-view.js';
import { listTimeline, type TimelineTableParams } from './timeline/timeline-table.sql.js';
import type { BatchPlaces } from '../telemetry/batch-places.sql.js';
import type { SpoolStats } from '../telemetry/spool.sql.js';

/** What the views read of the write side, lent by the telemetry module. */
export interface ViewsDeps {
  /** Folds every committed event into the process rollup; call before reading it. */
  catchUpRollup(): Promise<void>;
  /** The first position the rollup may not hold yet, or null when it holds every committed event. */
  unfoldedFrom(): bigint | null;
  /** The next position the store will hand out. */
  endSeq(): bigint;
  /** Where each sealed batch's events are (spares explain a read). */
  places: BatchPlaces;
  /** The events and bytes waiting in the spool now. */
  spoolStats(): SpoolStats;
}

/** The views' handlers, by kind, over the store and what the write side lends them. */
export function viewsHandlers(context: StoreContext, deps: ViewsDeps) {
  const { formatVersion } = context;
  return {
    explain: (params: ExplainParams) =>
      explain(context.reader(), context.reader(), params, deps.unfoldedFrom(), deps.places),
    timelineTable: (params: TimelineTableParams) =>
      listTimeline(context.reader(), context.reader(), params, formatVersion),
    timelineCausality: async (params: TimelineCausalityParams) => {
      await deps.catchUpRollup();
      return timelineCausality(context.reader(), context.reader(), params);
    },
    timelineSession: (params: TimelineSessionParams) =>
      timelineSession(context.reader(), context.reader(), params),
    // the application context (/v1/context/*) and the /api paths over the evidence
    contextOverview: async (params: ContextOverviewParams) =>
      jsonText(await overviewContext(context.reader(), params)),
    contextEntries: async (params: ContextEntriesParams) =>
      jsonText(await listContextEntries(context.reader(), params, formatVersion)),
    contextContent: async (params: ContextContentParams) =>
      jsonText(await readContextContent(context.reader(), params)),
    contextCompare: async (params: ContextCompareParams) =>
      jsonText(await compareContexts(context.reader(), params)),
    contextLinks: async (params: ContextLinksParams) =>
      jsonText(await readContextLinks(context.reader(), params)),
    compareRecords: async (params: CompareRecordsParams) =>
      jsonText(await compareRecords(context.reader(), params)),
    artifact: async (params: ArtifactParams) => jsonText(await readArtifact(context.reader(), params)),
    // one scrape of GET /metrics
    metricsFacts: (_: NoParams) => readMetricsFacts(context.reader(), () => deps.spoolStats()),
    searchSources: async (params: SearchParams) =>
      jsonText(await searchSources(context.reader(), params, formatVersion, deps.endSeq())),
  };
}

/** The views' kinds: params and result of each, from its handler. */
export type ViewsKinds = KindsOf<ReturnType<typeof viewsHandlers>>;
