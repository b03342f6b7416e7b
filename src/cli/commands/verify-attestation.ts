/** `provd verify --attestation FILE --key PUB`: checks a run's attestation bundle offline, with provd's own code. */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { verifyEnvelope } from '../../provenance/dsse.js';
import { publicKeyId } from '../../provenance/signing-key.js';
import {
  inTotoPayloadType,
  runtimeTraceType,
  statementType,
  type RunStatement,
} from '../../views/attest/runtime-trace.js';
import { bundleMediaType, type SigstoreBundle } from '../../views/attest/sigstore-bundle.js';
import { usageExitCode } from '../daemon-client-command.js';

export class VerifyAttestationCommand extends Command {
  static override paths = [['verify']];

  static override usage = Command.Usage({
    description: "Verify a run's attestation (provd attest) offline",
    details: `
      Checks a Sigstore bundle that \`provd attest\` wrote, with no daemon: a bundle v0.3 holding
      one DSSE envelope of an in-toto statement (\`application/vnd.in-toto+json\`), signed by the
      ed25519 or ECDSA P-256 public key \`--key\` names (PEM: the daemon's GET /v1/graph/keys
      lists it, \`attestations: true\`) over DSSE's pre-authentication encoding, whose statement
      is a Statement v1 with the Runtime Trace predicate. Prints the verdict and the statement's
      subjects.

      Exit code 0 when it verifies, 1 when it does not (another key, a changed byte, not a
      statement), 2 for bad usage or an unreadable file or key.
    `,
    examples: [
      [
        "An attestation under the daemon's key",
        '$0 verify --attestation run-1.sigstore.json --key provd.pub',
      ],
    ],
  });

  attestation = Option.String('--attestation', {
    required: true,
    description: 'the bundle provd attest wrote',
  });
  key = Option.String('--key', {
    required: true,
    description: 'the public key (PEM) it must be signed with',
  });

  // synchronous: it reads two small files and checks one signature
  execute(): Promise<number> {
    return Promise.resolve(this.verify());
  }

  private verify(): number {
    const { stdout, stderr } = this.context;
    let bundle: unknown;
    let key: KeyObject;
    try {
      bundle = JSON.parse(readFileSync(this.attestation, 'utf8'));
      key = createPublicKey(readFileSync(this.key, 'utf8'));
    } catch (error) {
      stderr.write(`provd: PROVD_ERR_CONFIG_INVALID: cannot read --attestation or --key: ${String(error)}\n`);
      return usageExitCode;
    }
    const verdict = check(bundle, key);
    if (typeof verdict === 'string') {
      stderr.write(`provd: ${this.attestation}: not verified: ${verdict}\n`);
      return 1;
    }
    stdout.write(`ok: ${this.attestation}: ${verdict.predicateType} signed by ${publicKeyId(key)}\n`);
    for (const subject of verdict.subject)
      stdout.write(
        `  subject ${subject.name ?? '(no name)'} sha256:${subject.digest?.['sha256'] ?? '(none)'}\n`,
      );
    return 0;
  }
}

/** The statement `bundle` carries, signed by `key`; or why not. */
function check(bundle: unknown, key: KeyObject): RunStatement | string {
  if (!typia.is<SigstoreBundle>(bundle) || bundle.mediaType !== bundleMediaType)
    return `not a Sigstore bundle v0.3 of a DSSE envelope signed by a public key`;
  const envelope = bundle.dsseEnvelope;
  if (envelope.payloadType !== inTotoPayloadType)
    return `payload type ${envelope.payloadType}, not ${inTotoPayloadType}`;
  if (envelope.signatures.length !== 1) return `${envelope.signatures.length} signatures, not one`;
  const p256 = key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (key.asymmetricKeyType !== 'ed25519' && !p256)
    return `--key is ${key.asymmetricKeyDetails?.namedCurve ?? key.asymmetricKeyType ?? 'no'} key, not ed25519 or ECDSA P-256`;
  const keyId = publicKeyId(key);
  const signer = envelope.signatures[0]!.keyid;
  if (signer !== keyId) return `signed by ${signer}, not by --key (${keyId})`;
  if (!verifyEnvelope(envelope, keyId, key)) return `the signature does not verify under --key`;
  let statement: unknown;
  try {
    statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
  } catch {
    return 'the signed payload is not JSON';
  }
  const { _type: type, predicateType } = (statement ?? {}) as Partial<RunStatement>;
  if (type !== statementType || predicateType !== runtimeTraceType)
    return `not an in-toto Statement v1 of ${runtimeTraceType}`;
  return statement as RunStatement;
}
