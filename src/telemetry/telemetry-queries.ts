/**
 * The store query kinds of the telemetry domain, with their params and results: the main thread
 * sends them through its StoreClient, telemetry-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { IngestCommit, IngestCommitResult } from './batch-commit.js';
import type { Binding } from './binding.js';
import type { ArtifactParams } from './context/artifact.query.js';
import type { CompareRecordsParams } from './context/compare-records.query.js';
import type { ContextCompareParams } from './context/context-compare.query.js';
import type { ContextContentParams } from './context/context-content.query.js';
import type { ContextEntriesParams } from './context/context-entries.query.js';
import type { ContextLinksParams } from './context/context-links.query.js';
import type { ContextOverviewParams } from './context/context-overview.query.js';
import type { CorrelationsParams } from './correlations.query.js';
import type { EventsParams } from './events.query.js';
import type { ExplainParams } from './explain/explain.query.js';
import type { ProducerHealthParams } from './producer-health.query.js';
import type { RunsParams } from './runs.query.js';
import type { SearchParams } from './search/search-sources.query.js';
import type { SummaryParams } from './summary.query.js';
import type { TimelineCausalityParams } from './timeline/timeline-causality.query.js';
import type { TimelineTableParams } from './timeline/timeline-table.query.js';
import type { WindowsParams } from './windows.query.js';

export type TelemetryQueries = {
  /** Commits one ingest request, all or nothing; a cancelled one is rolled back. */
  commit: QuerySpec<IngestCommit, IngestCommitResult>;
  /** Persists a binding; `recorrelated` counts spooled events it attributed at once. */
  bind: QuerySpec<{ binding: Binding }, { recorrelated: number }>;
  /** Every binding as a JSON record, in arrival order (to fill the workers' BindingLog at start). */
  bindings: QuerySpec<Record<string, never>, { records: string[] }>;
  // These reply with their finished response bodies.
  events: QuerySpec<EventsParams, unknown>;
  windows: QuerySpec<WindowsParams, unknown>;
  correlations: QuerySpec<CorrelationsParams, unknown>;
  explain: QuerySpec<ExplainParams, unknown>;
  producer_health: QuerySpec<ProducerHealthParams, unknown>;
  runs: QuerySpec<RunsParams, unknown>;
  summary: QuerySpec<SummaryParams, unknown>;
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
