/**
 * A DSSE envelope packaged as a Sigstore bundle v0.3 (sigstore/protobuf-specs, bundle.proto, in its
 * JSON form), verified by a key the verifier already trusts: `publicKey.hint` names it (provd's key
 * id), with no certificate, no transparency log entry and no timestamp, which provd does not have.
 */
import type { tags } from 'typia';
import type { DsseEnvelope } from '../../provenance/dsse.js';

export const bundleMediaType = 'application/vnd.dev.sigstore.bundle.v0.3+json';

/** The JSON form of a Sigstore bundle v0.3 holding a DSSE envelope signed by a known public key. */
export interface SigstoreBundle {
  mediaType: typeof bundleMediaType;
  verificationMaterial: {
    /** an unauthenticated hint: the verifier looks the key up by it in its own trusted keys */
    publicKey: { hint: string };
    /** always empty: provd logs to no transparency log */
    tlogEntries: unknown[] & tags.MaxItems<0>;
  };
  dsseEnvelope: DsseEnvelope;
}

/** `envelope` as a bundle whose key hint is `keyId`. */
export function sigstoreBundle(envelope: DsseEnvelope, keyId: string): SigstoreBundle {
  return {
    mediaType: bundleMediaType,
    verificationMaterial: { publicKey: { hint: keyId }, tlogEntries: [] },
    dsseEnvelope: envelope,
  };
}
