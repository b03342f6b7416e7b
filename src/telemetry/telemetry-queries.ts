/**
 * The store query kinds of the telemetry domain, with their params and results: the main thread
 * sends them through its StoreClient, telemetry-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { IngestCommit, IngestCommitResult } from './batch-commit.js';
import type { Binding } from './binding.js';
import type { CorrelationsParams } from './correlations.query.js';
import type { EventsParams } from './events.query.js';
import type { ProducerHealthParams } from './producer-health.query.js';
import type { RunsParams } from './runs.query.js';
import type { SummaryParams } from './summary.query.js';
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
  producer_health: QuerySpec<ProducerHealthParams, unknown>;
  runs: QuerySpec<RunsParams, unknown>;
  summary: QuerySpec<SummaryParams, unknown>;
};
