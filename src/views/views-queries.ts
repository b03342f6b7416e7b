/**
 * The store query kinds of the read models: views over what telemetry, provenance and security
 * stored (the application context, the timeline, explain, search). The main thread sends them
 * through its StoreClient; views-store.ts answers them on the store thread. Each replies with its
 * finished response body.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { ArtifactParams } from './context/artifact.query.js';
import type { CompareRecordsParams } from './context/compare-records.query.js';
import type { ContextCompareParams } from './context/context-compare.query.js';
import type { ContextContentParams } from './context/context-content.query.js';
import type { ContextEntriesParams } from './context/context-entries.query.js';
import type { ContextLinksParams } from './context/context-links.query.js';
import type { ContextOverviewParams } from './context/context-overview.query.js';
import type { ExplainParams } from './explain/explain.query.js';
import type { SearchParams } from './search/search-sources.query.js';
import type { TimelineCausalityParams } from './timeline/timeline-causality.query.js';
import type { TimelineTableParams } from './timeline/timeline-table.query.js';

export type ViewsQueries = {
  explain: QuerySpec<ExplainParams, unknown>;
  timeline_table: QuerySpec<TimelineTableParams, unknown>;
  timeline_causality: QuerySpec<TimelineCausalityParams, unknown>;
  // the application context (/v1/context/*) and the /api paths over the evidence
  context_overview: QuerySpec<ContextOverviewParams, unknown>;
  context_entries: QuerySpec<ContextEntriesParams, unknown>;
  context_content: QuerySpec<ContextContentParams, unknown>;
  context_compare: QuerySpec<ContextCompareParams, unknown>;
  context_links: QuerySpec<ContextLinksParams, unknown>;
  compare_records: QuerySpec<CompareRecordsParams, unknown>;
  artifact: QuerySpec<ArtifactParams, unknown>;
  search_sources: QuerySpec<SearchParams, unknown>;
};
