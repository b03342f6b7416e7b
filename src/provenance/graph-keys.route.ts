/** GET /v1/graph/keys and GET /v1/graph/checkpoint on the main thread: forward to the store. */
import type { Endpoint } from '../shared/http/endpoint.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { ProvenanceKinds } from './provenance-kinds.js';
import { runQuery } from './run-query.js';
import typia from 'typia';
import type { GraphCheckpoint } from './checkpoint.sql.js';
import type { GraphKeys } from './keys.sql.js';

/** The public keys of the store's checkpoints. */
export const graphKeysEndpoint: Endpoint<{ store: QueryClient<ProvenanceKinds> }> = {
  method: 'GET',
  path: '/v1/graph/keys',
  operationId: 'graph_keys',
  summary: 'The public keys that signed checkpoints in this store, the current one first (provd extension)',
  schema: 'keys',
  answerType: () => typia.json.schemas<[GraphKeys], '3.1'>(),
  handler:
    ({ store }) =>
    async () => ({ status: 200, body: await store.query('keys', {}, { deadlineMs: 10_000 }) }),
};

/** A run's latest checkpoint, as of the sealing round that covers what was stored before the request. */
export const checkpointEndpoint = queryEndpointOf<ProvenanceKinds>()({
  path: '/v1/graph/checkpoint',
  operationId: 'graph_checkpoint',
  summary:
    "A run's latest signed checkpoint (DSSE envelope, ed25519), written first if the run moved (provd extension)",
  schema: 'checkpoint',
  answerType: () => typia.json.schemas<[GraphCheckpoint], '3.1'>(),
  contract: runQuery,
  kind: 'checkpoint',
  params: ({ run }) => ({ run }),
});
