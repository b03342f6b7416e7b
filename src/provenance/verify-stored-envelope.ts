/**
 * The check of a stored DSSE envelope against the object it signs (a checkpoint, a host chain
 * entry): it is an envelope of the object's payload type, it carries exactly the object's bytes
 * (they hash to its address), and a signature by a key this store knows verifies under it.
 */
import { verifyEnvelope, type DsseEnvelope } from './dsse.js';
import { sha256 } from './graph-object.js';
import type { VerifyIssues } from './verify-issues.js';

/** What an envelope signs, as its check names it. */
export interface SignedKind {
  payloadType: string;
  /** The object, as the issue of an envelope that does not carry it names it (`this checkpoint`). */
  name: string;
  /** The message of an envelope signed by no key of this store, given its signatures' key ids. */
  unknownKey: (keyIds: readonly string[]) => string;
}

/** Checks `envelope`, stored for the object at `hash`; reports what fails as an issue of `hash`. */
export function verifyStoredEnvelope(
  hash: string,
  envelope: string,
  kind: SignedKind,
  keys: ReadonlyMap<string, string>,
  issues: VerifyIssues,
): void {
  let parsed: DsseEnvelope;
  try {
    parsed = JSON.parse(envelope) as DsseEnvelope;
    if (typeof parsed.payload !== 'string' || !Array.isArray(parsed.signatures)) throw new TypeError();
  } catch {
    issues.error('checkpoint_payload_mismatch', hash, 'the stored envelope is not a DSSE envelope');
    return;
  }
  if (parsed.payloadType !== kind.payloadType || sha256(Buffer.from(parsed.payload, 'base64')) !== hash) {
    issues.error('checkpoint_payload_mismatch', hash, `the envelope does not carry ${kind.name}`);
    return;
  }
  const keyIds = parsed.signatures.map((signature) => signature.keyid);
  const known = keyIds.filter((keyId) => keys.has(keyId));
  if (known.length === 0) {
    issues.error('checkpoint_key_unknown', hash, kind.unknownKey(keyIds));
    return;
  }
  let valid = false;
  try {
    valid = known.some((keyId) => verifyEnvelope(parsed, keyId, keys.get(keyId)!));
  } catch {
    valid = false; // a signature that is not even well-formed
  }
  if (!valid) issues.error('checkpoint_signature_invalid', hash, 'the signature does not verify');
}
