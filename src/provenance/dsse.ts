/**
 * DSSE envelopes (Dead Simple Signing Envelope, secure-systems-lab/dsse v1): the signature covers
 * PAE(payloadType, payload) = "DSSEv1" SP len(type) SP type SP len(payload) SP payload, lengths as
 * decimal byte counts, so a payload can never be read under another type.
 */
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** The payload type of provd checkpoints. */
export const checkpointPayloadType = 'application/vnd.provd.checkpoint+json';

/** A DSSE envelope as stored and served. */
export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the payload bytes */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** The pre-authentication encoding of a payload. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
}

/**
 * The digest a key signs with: none for ed25519 (it hashes inside), SHA-256 for ECDSA P-256, whose
 * signature is DER as sigstore and securesystemslib read it.
 */
function digestOf(key: KeyObject): string | null {
  return key.asymmetricKeyType === 'ec' ? 'sha256' : null;
}

/** Signs `payload` with an ed25519 or ECDSA P-256 key into an envelope. */
export function signEnvelope(
  payloadType: string,
  payload: Buffer,
  key: KeyObject,
  keyId: string,
): DsseEnvelope {
  const sig = sign(digestOf(key), pae(payloadType, payload), key).toString('base64');
  return { payloadType, payload: payload.toString('base64'), signatures: [{ keyid: keyId, sig }] };
}

/** True when the envelope's signature by `keyId` verifies under `publicKey`. */
export function verifyEnvelope(
  envelope: DsseEnvelope,
  keyId: string,
  publicKey: KeyObject | string,
): boolean {
  const signature = envelope.signatures.find((entry) => entry.keyid === keyId);
  if (signature === undefined) return false;
  const payload = Buffer.from(envelope.payload, 'base64');
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  return verify(digestOf(key), pae(envelope.payloadType, payload), key, Buffer.from(signature.sig, 'base64'));
}
