/**
 * The store query kinds of the provenance domain, with their params and results: the main thread
 * sends them through its StoreClient, provenance-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { ArtifactParams } from './api/artifact.query.js';
import type { CompareRecordsParams } from './api/compare-records.query.js';
import type { SearchParams } from './api/search-sources.query.js';
import type { CheckpointParams } from './checkpoint.query.js';
import type { ContextCompareParams } from './context/context-compare.query.js';
import type { ContextContentParams } from './context/context-content.query.js';
import type { ContextEntriesParams } from './context/context-entries.query.js';
import type { ContextLinksParams } from './context/context-links.query.js';
import type { ContextOverviewParams } from './context/context-overview.query.js';
import type { RecordWrite, RecordWritten, ToolCallKey } from './record/record-store.js';
import type { VerifyParams } from './verify.query.js';

export type ProvenanceQueries = {
  // These reply with their finished response bodies.
  verify: QuerySpec<VerifyParams, unknown>;
  keys: QuerySpec<Record<string, never>, unknown>;
  checkpoint: QuerySpec<CheckpointParams, unknown>;
  context_overview: QuerySpec<ContextOverviewParams, unknown>;
  context_entries: QuerySpec<ContextEntriesParams, unknown>;
  context_content: QuerySpec<ContextContentParams, unknown>;
  context_compare: QuerySpec<ContextCompareParams, unknown>;
  context_links: QuerySpec<ContextLinksParams, unknown>;
  compare_records: QuerySpec<CompareRecordsParams, unknown>;
  search_sources: QuerySpec<SearchParams, unknown>;
  artifact: QuerySpec<ArtifactParams, unknown>;
  // POST /v1/record: the check before a command runs, and the write after
  recordFree: QuerySpec<ToolCallKey, Record<string, never>>;
  record: QuerySpec<RecordWrite, RecordWritten>;
};
