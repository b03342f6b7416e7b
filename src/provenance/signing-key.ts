/**
 * The daemon's signing keys. Checkpoints: ed25519, PEM (PKCS#8) in the data dir, made at first
 * start with mode 0600, or given with --signing-key. Attestations: that key, or with
 * `--attestation-key ecdsa-p256` an ECDSA P-256 key of their own made beside it (cosign v3 does
 * not verify ed25519 DSSE envelopes by default: sigstore/cosign#5074). A key's id is
 * `sha256:<hex>` of its public key's SPKI DER bytes, so anyone holding the public key can tell
 * which key signed an envelope.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProvdError } from '../shared/errors.js';
import { signEnvelope, type DsseEnvelope } from './dsse.js';
import { sha256 } from './graph-object.js';

/** The algorithms of provd's signing keys, as GET /v1/graph/keys names them. */
export type KeyAlgorithm = 'ed25519' | 'ecdsa-p256';

/** A loaded signing key with its public half and id. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  keyId: string;
  algorithm: KeyAlgorithm;
}

/** Where the key is made when --signing-key is not given. */
export const defaultKeyFile = (dataDir: string): string => join(dataDir, 'signing-key.pem');

/** Where `--attestation-key ecdsa-p256` keeps its key. */
export const attestationKeyFile = (dataDir: string): string => join(dataDir, 'attestation-key-p256.pem');

/** Makes the default key file if it is missing (mode 0600); returns its path. */
export function ensureDefaultKey(dataDir: string): string {
  return ensureKeyFile(defaultKeyFile(dataDir), 'ed25519');
}

/** Makes the ECDSA P-256 attestation key file if it is missing (mode 0600); returns its path. */
export function ensureAttestationKey(dataDir: string): string {
  return ensureKeyFile(attestationKeyFile(dataDir), 'ecdsa-p256');
}

function ensureKeyFile(file: string, algorithm: KeyAlgorithm): string {
  if (!existsSync(file)) {
    const { privateKey } =
      algorithm === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  }
  return file;
}

/** A private key's algorithm among provd's, or what it is instead. */
function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec')
    return key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
      ? 'ecdsa-p256'
      : `an EC key on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}`;
  return key.asymmetricKeyType ?? 'a symmetric key';
}

/** Reads a private key of `algorithm`; a file that is not one is PROVD_ERR_CONFIG_INVALID naming `option`. */
export function loadSigningKey(
  file: string,
  option = '--signing-key',
  algorithm: KeyAlgorithm = 'ed25519',
): SigningKey {
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
  const found = algorithmOf(privateKey);
  if (found !== algorithm)
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `${option} ${file}: an ${algorithm} key is needed, not ${found}`,
    );
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: publicKeyId(publicKey),
    algorithm,
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
