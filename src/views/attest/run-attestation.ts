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
import { sigstoreBundle, type SigstoreBundle } from './sigstore-bundle.js';

/** The params of the `attestation` store query. */
export interface AttestationParams {
  run: string;
}

/** GET /v1/graph/attestation's answer: the bundle, and what it names to check it with. */
export interface RunAttestation {
  schema_version: 'provenance.attestation/v1';
  run_id: string;
  /** the signing key's id (`GET /v1/graph/keys`), also the bundle's `publicKey.hint` and the DSSE `keyid` */
  key_id: string;
  /** the run's latest checkpoint, the statement's first subject */
  checkpoint: { hash: string; index: number };
  /** `subject` entries of the statement, the checkpoint's among them */
  subjects: number;
  /** a Sigstore bundle v0.3; its `dsseEnvelope.payload` is the in-toto statement */
  bundle: SigstoreBundle;
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
