/**
 * How a domain plugs into the store actor: it declares its query kinds as a typed list of handlers,
 * and the actor dispatches by kind without knowing any of them. workers/store.worker.ts hands the
 * actor the domains' modules explicitly.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { QueryMap } from '../shared/store-protocol.js';
import type { WriteQueue } from './write-queue.js';

/** What the actor lends a domain once the database is open and migrated. */
export interface StoreContext {
  /** The one write connection; every write runs through `writes`, one transaction at a time. */
  writer: DuckDBConnection;
  writes: WriteQueue;
  /** A read connection, taken in turn; reads run on DuckDB's threads while writes go on. */
  reader(): DuckDBConnection;
  /** The store format version (cursors carry it). */
  formatVersion: number;
  /** How many queries are being answered now: background upkeep waits for none. */
  activeQueries(): number;
}

/** What a handler knows of its request: `signal` aborts once the caller's deadline passed. */
export interface QueryRequest {
  signal: AbortSignal;
}

/** Answers one query kind with its serialized JSON body. */
export type QueryHandler<Params> = (params: Params, request: QueryRequest) => Promise<string>;

/** One handler per kind of a domain's query map: a missing or extra kind fails the build. */
export type QueryHandlers<Q extends QueryMap> = { [K in keyof Q]: QueryHandler<Q[K]['params']> };

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
  queries: { readonly [kind: string]: QueryHandler<never> };
  /** Adds facts to the readiness check, on the health connection. */
  healthFacts?(connection: DuckDBConnection): Promise<Partial<HealthFacts>>;
  /** Writes what it still owes the store (through the write queue); called once when the store closes, before stop. */
  flush?(): Promise<void>;
  /** Stops timers; called before the database closes. */
  stop?(): void;
}

/** Builds a domain's modules once the database is ready. */
export type StoreModuleFactory = (context: StoreContext) => Promise<StoreModule[]>;
