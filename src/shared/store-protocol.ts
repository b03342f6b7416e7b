/**
 * The message protocol between the main thread and the store actor (workers/store.worker.ts). It
 * knows no domain: a request names a query kind and carries its params; which kinds exist, and
 * their params and results, is declared by each domain's query list (src/store/store-module.ts).
 */
import type { ErrorData } from './errors.js';

/** One query kind: the params it takes and the JSON shape of its reply body. */
export interface QuerySpec<Params = unknown, Result = unknown> {
  params: Params;
  result: Result;
}

/** Query kinds by name, as a domain declares them. */
export type QueryMap = { [kind: string]: QuerySpec };

export interface StoreRequest {
  type: 'query';
  id: number;
  kind: string;
  params: unknown;
}

/**
 * Asks the actor to give up on a request whose deadline passed. A cancellable write that has not
 * committed is rolled back and answered PROVD_ERR_STORE_TIMEOUT; one that did commit answers as usual.
 */
export interface StoreCancelRequest {
  type: 'cancel';
  id: number;
}

/** Asks the actor to checkpoint and close the database, then to answer `closed`. */
export interface StoreCloseRequest {
  type: 'close';
}

export type StoreInbound = StoreRequest | StoreCancelRequest | StoreCloseRequest;

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

/** What the main thread needs of the store: typed queries with a deadline (StoreClient implements it). */
export interface QueryClient<Q extends QueryMap> {
  /** The reply body as the actor serialized it (answers forward it as is). */
  query<K extends keyof Q & string>(
    kind: K,
    params: Q[K]['params'],
    options: QueryOptions,
  ): Promise<Uint8Array>;
  /** The reply parsed into the result type its kind declares. */
  queryJson<K extends keyof Q & string>(
    kind: K,
    params: Q[K]['params'],
    options: QueryOptions,
  ): Promise<Q[K]['result']>;
}

/** How long to wait for a query. */
export interface QueryOptions {
  deadlineMs: number;
  /**
   * For writes: after the deadline, wait up to this long for the actor's verdict (rolled back, or
   * committed after all) instead of answering at once, so a timeout never hides a stored write.
   */
  verdictMs?: number;
}
