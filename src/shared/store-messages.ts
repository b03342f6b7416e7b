/**
 * The message protocol between the main thread and the store actor (workers/store.worker.ts).
 * Requests carry an id, a query kind and its params; replies carry serialized JSON bytes or error data.
 */
import type { BatchDigest } from '../ingest/normalize.js';
import type { Binding } from '../telemetry/binding.js';
import type { CorrelationsParams } from '../telemetry/correlations.query.js';
import type { EventsParams } from '../telemetry/events.query.js';
import type { ProducerHealthParams } from '../telemetry/producer-health.query.js';
import type { WindowsParams } from '../telemetry/windows.query.js';
import type { WindowDelta } from '../telemetry/window-deltas.js';
import type { SpoolLimits } from '../store/spool.js';
import type { ErrorData } from './errors.js';

/** What the store actor is given when its thread starts. */
export interface StoreInit {
  dbPath: string;
  /** Where normalize workers write row files; leftovers from a crash are removed at open. */
  spoolDir: string;
  /** Fault injection for tests: block the store thread this long inside every readiness check. */
  healthStallMs: number;
  spool: SpoolLimits;
}

/** Each query kind with its params and the JSON shape of its reply body. */
export interface StoreQueries {
  health: { params: Record<string, never>; result: StoreHealthReport };
  /** `settled`: spooled rows of these batches that bindings placed during the commit. */
  commit: { params: { batches: BatchCommit[] }; result: { committed: number; settled: number } };
  /** Persists a binding; `recorrelated` counts spooled events it attributed at once. */
  bind: { params: { binding: Binding }; result: { recorrelated: number } };
  /** Every binding as a JSON record, in arrival order (to fill the workers' BindingLog at start). */
  bindings: { params: Record<string, never>; result: { records: string[] } };
  // These reply with their finished response bodies.
  events: { params: EventsParams; result: unknown };
  windows: { params: WindowsParams; result: unknown };
  correlations: { params: CorrelationsParams; result: unknown };
  producer_health: { params: ProducerHealthParams; result: unknown };
}

/** One producer counter increment: `accepted` per source, `invalid` per rejection code, spool outcomes. */
export interface CounterDelta {
  source: string;
  counter: string;
  value: number;
}

/** One normalized batch, ready to commit: its rows file and what it adds to windows, digests and counters. */
export interface BatchCommit {
  batchId: string;
  /** Rows file to load, or null when no line of the batch was accepted. */
  file: string | null;
  accepted: number;
  pending: number;
  pendingBytes: number;
  windows: WindowDelta[];
  digests: BatchDigest[];
  counters: CounterDelta[];
  bindingVersion: number;
  /** When the batch was received: spooled rows expire a TTL after it. */
  ingestedNs: bigint;
}

export type StoreQueryKind = keyof StoreQueries;

export interface StoreRequest<K extends StoreQueryKind = StoreQueryKind> {
  type: 'query';
  id: number;
  kind: K;
  params: StoreQueries[K]['params'];
}

/** Asks the actor to checkpoint and close the database, then to answer `closed`. */
export interface StoreCloseRequest {
  type: 'close';
}

export type StoreInbound = StoreRequest | StoreCloseRequest;

export type StoreReply =
  | { type: 'reply'; id: number; ok: true; body: Uint8Array }
  | { type: 'reply'; id: number; ok: false; error: ErrorData };

/** How the database came up: usable, present but left untouched, or not openable at all. */
export type StoreOpenState =
  | { status: 'ready'; formatVersion: number; appliedMigrations: number[] }
  | { status: 'incompatible'; formatVersion: number | null; error: ErrorData }
  | { status: 'failed'; error: ErrorData };

export type StoreOutbound =
  StoreReply | { type: 'opened'; state: StoreOpenState } | { type: 'closed'; error?: ErrorData };

/** The store actor's half of a readiness check: what it found in the database, without judging it. */
export interface StoreHealthReport {
  database: { ok: boolean; latency_ms: number; error?: ErrorData };
  format: { found: number | null; supported: number; compatible: boolean; reason?: string };
  missing_tables: string[];
  /** Rows in coverage_gaps, or null when the table could not be read. */
  coverage_gaps: number | null;
  /** Spooled events and their bytes, or null when unknown. */
  spool: { events: number; bytes: number } | null;
  /** Whether any event was ever stored (false: coverage not observed yet). */
  events_seen: boolean | null;
}
