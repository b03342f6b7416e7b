/** GET /v1/graph/keys in the store actor: every key that signed in this store, and the current one. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, sql } from '../store/sql.js';
import type { SigningKey } from './signing-key.js';
import { jsonText, type JsonText } from '../store/json-text.js';

/** One public key, enough to check a checkpoint envelope with any ed25519 implementation. */
export interface PublicKeyEntry {
  /** `sha256:<hex>` of the SPKI DER public key: the `keyid` of the envelopes it signed */
  key_id: string;
  algorithm: 'ed25519';
  /** SPKI, PEM */
  public_key_pem: string;
  /** true for the key this daemon signs with now */
  current: boolean;
}

/** The public keys of this store's checkpoints. */
export interface GraphKeys {
  schema_version: 'provenance.keys/v1';
  keys: PublicKeyEntry[];
}

/** Lists the keys, the current one first. */
export async function listKeys(
  connection: DuckDBConnection,
  current: SigningKey,
): Promise<JsonText<GraphKeys>> {
  const rows = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys ORDER BY created_ns`,
  );
  const keys: PublicKeyEntry[] = [
    { key_id: current.keyId, algorithm: 'ed25519', public_key_pem: current.publicKeyPem, current: true },
    ...rows
      .filter((row) => row.key_id !== current.keyId)
      .map((row) => ({
        key_id: row.key_id,
        algorithm: 'ed25519' as const,
        public_key_pem: row.public_key_pem,
        current: false,
      })),
  ];
  const answer: GraphKeys = { schema_version: 'provenance.keys/v1', keys };
  return jsonText(answer);
}
