/** GET /v1/graph/attestation on the main thread: check `run`, forward to the store (src/views/attest/). */
import { runQuery } from '../../provenance/run-query.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { ExportKinds } from '../export/export-store.js';
import typia from 'typia';
import type { RunAttestation } from './run-attestation.js';

/** A run's in-toto attestation as a Sigstore bundle, signed by the checkpoint key. */
export const attestationEndpoint = queryEndpointOf<ExportKinds>()({
  path: '/v1/graph/attestation',
  operationId: 'graph_attestation',
  summary:
    "A run's in-toto Statement v1 (Runtime Trace predicate v0.2), DSSE-signed by the checkpoint key, in a Sigstore bundle v0.3 (provd extension; docs/provenance.md)",
  description:
    "Subjects: the run's latest checkpoint and the files its recorded commands left with a content hash; " +
    'the predicate lists its execs, network destinations, DNS names and file accesses, each list bounded with what it left out counted in `provdOmitted`. ' +
    'Verify `bundle` with the key of `key_id` from GET /v1/graph/keys (its `publicKey.hint`).',
  schema: 'attestation',
  answerType: () => typia.json.schemas<[RunAttestation], '3.1'>(),
  contract: runQuery,
  kind: 'attestation',
  params: ({ run }) => ({ run }),
  deadlineMs: 60_000,
});
