/**
 * The message protocol between the main thread and the store actor (workers/store.worker.ts).
 * Requests carry an id, a query kind and its params; replies carry serialized JSON bytes or error data.
 */
import type { ErrorData } from './errors.js';

/** What the store actor is given when its thread starts. */
export interface StoreInit {
  dbPath: string;
  /** Fault injection for tests: block the store thread this long inside every readiness check. */
  healthStallMs: number;
}

/** Each query kind with its params and the JSON shape of its reply body. */
export interface StoreQueries {
  health: { params: Record<string, never>; result: StoreHealthReport };
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
}
