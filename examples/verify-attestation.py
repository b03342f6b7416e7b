#!/usr/bin/python3
"""Checks a provd attestation (a Sigstore bundle holding a DSSE envelope) with securesystemslib.

Usage: verify-attestation.py BUNDLE.json PUBLIC_KEY.pem

The DSSE signature is checked by securesystemslib (Debian: python3-securesystemslib) over the
pre-authentication encoding of the DSSE protocol, written out below from its spec; the key is the
daemon's attestation key as GET /v1/graph/keys serves it (`attestations: true`): ed25519, or ECDSA
P-256 with `provd daemon --attestation-key ecdsa-p256`. Exit 0 and a summary when the
signature verifies, 1 when it does not, 2 for unusable input.
"""
import base64
import hashlib
import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from securesystemslib.exceptions import UnverifiedSignatureError, VerificationError
from securesystemslib.signer import Signature, SSlibKey


def pae(payload_type: bytes, payload: bytes) -> bytes:
    """DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal."""
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(payload), payload)


def main(bundle_path: str, key_path: str) -> int:
    with open(bundle_path, "rb") as f:
        bundle = json.load(f)
    with open(key_path, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    p256 = isinstance(public_key, ec.EllipticCurvePublicKey) and public_key.curve.name == "secp256r1"
    if not isinstance(public_key, ed25519.Ed25519PublicKey) and not p256:
        print("not an ed25519 or ECDSA P-256 public key", file=sys.stderr)
        return 2
    envelope = bundle["dsseEnvelope"]
    payload = base64.b64decode(envelope["payload"], validate=True)
    payload_type = envelope["payloadType"]
    if payload_type != "application/vnd.in-toto+json":
        print(f"not an in-toto statement: payloadType {payload_type}", file=sys.stderr)
        return 1
    hint = bundle["verificationMaterial"]["publicKey"]["hint"]
    # securesystemslib takes a hex key id: provd's is sha256:<hex> of the key's SPKI DER bytes
    der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    keyid = hashlib.sha256(der).hexdigest()
    if hint != f"sha256:{keyid}":
        print(f"note: the bundle names key {hint}, this key is sha256:{keyid}", file=sys.stderr)
    if p256:
        # securesystemslib's ECDSA keys hold the SPKI PEM; the signature is DER, over SHA-256
        pem = public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        key = SSlibKey(keyid, "ecdsa", "ecdsa-sha2-nistp256", {"public": pem.decode()})
    else:
        raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        key = SSlibKey(keyid, "ed25519", "ed25519", {"public": raw.hex()})
    signatures = envelope["signatures"]
    if len(signatures) != 1:
        print(f"expected one signature, found {len(signatures)}", file=sys.stderr)
        return 1
    sig = base64.b64decode(signatures[0]["sig"], validate=True).hex()
    try:
        key.verify_signature(Signature(keyid, sig), pae(payload_type.encode(), payload))
    except (UnverifiedSignatureError, VerificationError) as error:
        print(f"signature does not verify: {error}", file=sys.stderr)
        return 1
    statement = json.loads(payload)
    print(f"verified: {statement['predicateType']} signed by sha256:{keyid}")
    for subject in statement["subject"]:
        print(f"  subject {subject['name']} sha256:{subject['digest']['sha256']}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"cannot read the bundle or the key: {error!r}", file=sys.stderr)
        sys.exit(2)
