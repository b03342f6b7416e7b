/**
 * How a domain plugs into the store actor: it declares its query kinds as a typed list of handlers,
 * and the actor dispatches by kind without knowing any of them. A domain's kind map (params and
 * result of each kind, what the main thread sends) is derived from its handlers' types with
 * KindsOf, never kept by hand. workers/store.worker.ts lists the domains' modules.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { QuerySpec } from '../shared/store-protocol.js';
import type { JsonText } from './json-text.js';
import type { WriteQueue } from './write-queue.js';

/** What the actor lends a domain once the database is open and migrated. */
export interface StoreContext {
  /** The one write connection; every write runs through `writes`, one transaction at a time. */
  writer: DuckDBConnection;
  writes: WriteQueue;
  /** A read connection, taken in turn; reads run on DuckDB's threads while writes go on. */
  reader(): DuckDBConnection;
  /** Runs `body` on a private connection in one read transaction (one snapshot), then closes it. */
  snapshot<T>(body: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** The store format version (cursors carry it). */
  formatVersion: number;
  /** How many queries are being answered now: background upkeep waits for none. */
  activeQueries(): number;
}

/** What a handler knows of its request: `signal` aborts once the caller's deadline passed. */
export interface QueryRequest {
  signal: AbortSignal;
}

/** Answers one query kind with the JSON text of its result. */
export type QueryHandler<Params, Result> = (
  params: Params,
  request: QueryRequest,
) => Promise<JsonText<Result>>;

/** The params of a kind that takes none. */
export type NoParams = Record<string, never>;

/** The kind map of a domain's handlers: each kind's params and result, read from its handler's type. */
export type KindsOf<Handlers> = {
  [K in keyof Handlers]: Handlers[K] extends (
    params: infer P,
    request: QueryRequest,
  ) => Promise<JsonText<infer R>>
    ? QuerySpec<P, R>
    : never;
};

/** Facts a domain adds to the readiness check. */
export interface HealthFacts {
  /** Spooled events and their bytes, or null when unknown. */
  spool: { events: number; bytes: number } | null;
  /** Whether any event was ever stored (false: coverage not observed yet). */
  events_seen: boolean | null;
}

/** A domain's part of the store thread. */
export interface StoreModule {
  name: string;
  /** Handlers by kind; `never` params: the actor passes each the params its kind was sent with. */
  queries: { readonly [kind: string]: QueryHandler<never, unknown> };
  /** Adds facts to the readiness check, on the health connection. */
  healthFacts?(connection: DuckDBConnection): Promise<Partial<HealthFacts>>;
  /** Writes what it still owes the store (through the write queue); called once when the store closes, before stop. */
  flush?(): Promise<void>;
  /** Stops timers; called before the database closes. */
  stop?(): void;
}

/** Builds a domain's modules once the database is ready. */
export type StoreModuleFactory = (context: StoreContext) => Promise<StoreModule[]>;
