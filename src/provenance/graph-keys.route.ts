/** GET /v1/graph/keys and GET /v1/graph/checkpoint on the main thread: forward to the store. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { ProvenanceQueries } from './provenance-queries.js';

/** The query string of GET /v1/graph/checkpoint. */
export interface CheckpointQuery {
  /** run identifier */
  run: string;
}

/** How the checkpoint route reads its query, and the endpoint's OpenAPI parameters. */
export const checkpointQuery = new ParamContract<CheckpointQuery>(
  typia.json.schema<CheckpointQuery, '3.1'>(),
  typia.createValidate<CheckpointQuery>(),
);

/** The public keys of the store's checkpoints. */
export function graphKeysRoute(store: QueryClient<ProvenanceQueries>): RouteHandler {
  return async () => ({ status: 200, body: await store.query('keys', {}, { deadlineMs: 10_000 }) });
}

/** A run's latest checkpoint, written first if the run's chains moved since the last one. */
export function checkpointRoute(store: QueryClient<ProvenanceQueries>): RouteHandler {
  return async ({ query }) => {
    const { run } = checkpointQuery.parse(query);
    return { status: 200, body: await store.query('checkpoint', { run }, { deadlineMs: 10_000 }) };
  };
}
