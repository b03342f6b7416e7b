/** GET /v1/graph/keys in the store actor: every key that signed in this store, and the current one. */
import type { StoreConnection } from '../store/store-connection.js';
import { readRows, sql } from '../store/sql.js';
import type { KeyAlgorithm, SigningKey } from './signing-key.js';
import { jsonText, type JsonText } from '../store/json-text.js';

/** One public key, enough to check an envelope it signed with any ed25519 or ECDSA P-256 implementation. */
export interface PublicKeyEntry {
  /** `sha256:<hex>` of the SPKI DER public key: the `keyid` of the envelopes it signed */
  key_id: string;
  /** ed25519 for checkpoints; ecdsa-p256 only for attestations (`--attestation-key ecdsa-p256`) */
  algorithm: KeyAlgorithm;
  /** SPKI, PEM */
  public_key_pem: string;
  /** true for the keys this daemon signs with now */
  current: boolean;
  /** true for the key this daemon signs attestations with now (GET /v1/graph/attestation) */
  attestations: boolean;
}

/** The public keys of this store's checkpoints. */
export interface GraphKeys {
  schema_version: 'provenance.keys/v1';
  keys: PublicKeyEntry[];
}

/** Lists the keys: the current checkpoint key first, then a P-256 attestation key, then older keys. */
export async function listKeys(
  connection: StoreConnection,
  current: SigningKey,
  attestation: SigningKey,
): Promise<JsonText<GraphKeys>> {
  const rows = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys ORDER BY created_ns`,
  );
  const entry = (key: SigningKey): PublicKeyEntry => ({
    key_id: key.keyId,
    algorithm: key.algorithm,
    public_key_pem: key.publicKeyPem,
    current: true,
    attestations: key.keyId === attestation.keyId,
  });
  const keys: PublicKeyEntry[] = [
    entry(current),
    ...(attestation.keyId === current.keyId ? [] : [entry(attestation)]),
    ...rows
      .filter((row) => row.key_id !== current.keyId)
      .map((row) => ({
        key_id: row.key_id,
        algorithm: 'ed25519' as const,
        public_key_pem: row.public_key_pem,
        current: false,
        attestations: false,
      })),
  ];
  const answer: GraphKeys = { schema_version: 'provenance.keys/v1', keys };
  return jsonText(answer);
}
