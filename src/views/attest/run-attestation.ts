/**
 * The answer of GET /v1/graph/attestation (`provenance.attestation/v1`), as the CLI reads it and
 * the store writes it (attest-run.ts): the wire contract alone, with no store code.
 */
import type { SigstoreBundle } from './sigstore-bundle.js';

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
