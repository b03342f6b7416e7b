/** GET /v1/graph/keys and GET /v1/graph/checkpoint on the main thread: forward to the store. */
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { ProvenanceQueries } from './provenance-queries.js';
import { runQuery } from './run-query.js';

/** The public keys of the store's checkpoints. */
export function graphKeysRoute(store: QueryClient<ProvenanceQueries>): RouteHandler {
  return async () => ({ status: 200, body: await store.query('keys', {}, { deadlineMs: 10_000 }) });
}

/** A run's latest checkpoint, written first if the run's chains moved since the last one. */
export function checkpointRoute(store: QueryClient<ProvenanceQueries>): RouteHandler {
  return async ({ query }) => {
    const { run } = runQuery.parse(query);
    return { status: 200, body: await store.query('checkpoint', { run }, { deadlineMs: 10_000 }) };
  };
}
