/**
 * A run's attestation in the store actor: its statement (runtime-trace.ts) as canonical JSON (RFC
 * 8785), signed as DSSE (`application/vnd.in-toto+json`) with the key checkpoints are signed with,
 * packaged as a Sigstore bundle. The same stored run gives the same bytes: nothing in it is the
 * time of the request, and ed25519 signatures are deterministic.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { canonicalJson } from '../../model/canonical-json.js';
import type { StatementSigner } from '../../provenance/signing-key.js';
import { readRunFacts } from './attest-facts.sql.js';
import { inTotoPayloadType, runStatement } from './runtime-trace.js';
import type { RunAttestation } from './run-attestation.js';
import { sigstoreBundle } from './sigstore-bundle.js';

/** The params of the `attestation` store query. */
export interface AttestationParams {
  run: string;
}

/** Reads, states, signs and packages `run`. */
export async function attestRun(
  connection: StoreConnection,
  params: AttestationParams,
  host: string,
  signer: StatementSigner,
): Promise<RunAttestation> {
  const facts = await readRunFacts(connection, params.run, host);
  const statement = runStatement(facts);
  const envelope = signer.sign(inTotoPayloadType, Buffer.from(canonicalJson(statement), 'utf8'));
  return {
    schema_version: 'provenance.attestation/v1',
    run_id: params.run,
    key_id: signer.keyId,
    checkpoint: facts.checkpoint,
    subjects: statement.subject.length,
    bundle: sigstoreBundle(envelope, signer.keyId),
  };
}
