/**
 * The daemon's checkpoint signing key: ed25519, PEM (PKCS#8) in the data dir, made at first start
 * with mode 0600, or given with --signing-key. Its id is `sha256:<hex>` of the public key's SPKI DER
 * bytes, so anyone holding the public key can tell which key signed an envelope.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProvdError } from '../shared/errors.js';
import { signEnvelope, type DsseEnvelope } from './dsse.js';
import { sha256 } from './graph-object.js';

/** A loaded signing key with its public half and id. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  keyId: string;
}

/** Where the key is made when --signing-key is not given. */
export const defaultKeyFile = (dataDir: string): string => join(dataDir, 'signing-key.pem');

/** Makes the default key file if it is missing (mode 0600); returns its path. */
export function ensureDefaultKey(dataDir: string): string {
  const file = defaultKeyFile(dataDir);
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  }
  return file;
}

/** Reads an ed25519 private key; a file that is not one is PROVD_ERR_CONFIG_INVALID naming `option`. */
export function loadSigningKey(file: string, option = '--signing-key'): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(file));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `${option} ${file}: not a readable private key (${reason})`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `${option} ${file}: an ed25519 key is needed, not ${privateKey.asymmetricKeyType ?? 'a symmetric key'}`,
    );
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: publicKeyId(publicKey),
  };
}

/** A public key's id: `sha256:<hex>` of its SPKI DER bytes, the `keyid` of the envelopes it signed. */
export function publicKeyId(publicKey: KeyObject): string {
  return sha256(publicKey.export({ type: 'spki', format: 'der' }));
}

/** Signs statements other than checkpoints with the store's key (an export's manifest); the private key stays here. */
export interface StatementSigner {
  keyId: string;
  publicKeyPem: string;
  sign(payloadType: string, payload: Buffer): DsseEnvelope;
}

/** The signer of `key`. */
export function statementSigner(key: SigningKey): StatementSigner {
  return {
    keyId: key.keyId,
    publicKeyPem: key.publicKeyPem,
    sign: (payloadType, payload) => signEnvelope(payloadType, payload, key.privateKey, key.keyId),
  };
}
