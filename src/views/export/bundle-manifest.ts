/**
 * The manifest `provd verify --bundle` trusts: the payload of manifest.dsse.json, once its
 * signature verifies under a trusted key, never manifest.json alone. manifest.json must be those
 * same bytes (a reader with jq sees what was signed); the signed manifest must be well formed: each
 * file once, each a plain name of the bundle's directory, the files its scope needs, and a
 * directory that matches its host and run.
 */
import { join } from 'node:path';
import typia from 'typia';
import { verifyEnvelope, type DsseEnvelope } from '../../provenance/dsse.js';
import type { VerifyIssues } from '../../provenance/verify-issues.js';
import { fileProblem, readRegularFile } from './bundle-files.js';
import { maxExportArchiveBytes } from './export-limits.js';
import { bundleFiles, manifestEnvelopeFile, noRunPartition, partitionValue } from './export-layout.js';
import { manifestPayloadType, type ExportManifest } from './export-manifest.js';

/** The signed manifest and the id of the key whose signature over it verified. */
export interface SignedManifest {
  manifest: ExportManifest;
  keyId: string;
}

/**
 * The manifest `dir`'s envelope signs under one of `keys` (by key id), or undefined with the
 * reason in `issues`. An unsigned, unverifiable or malformed manifest stops verification: nothing
 * else in the bundle can be trusted without it.
 */
export function readSignedManifest(
  dir: string,
  keys: ReadonlyMap<string, string>,
  issues: VerifyIssues,
): SignedManifest | undefined {
  const envelopePath = join(dir, manifestEnvelopeFile);
  let envelope: DsseEnvelope;
  try {
    envelope = JSON.parse(
      readRegularFile(envelopePath, maxExportArchiveBytes).toString('utf8'),
    ) as DsseEnvelope;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      issues.error('bundle_manifest_unsigned', manifestEnvelopeFile, 'the bundle has no signed manifest');
    } else {
      issues.error('bundle_manifest_invalid', manifestEnvelopeFile, `unreadable: ${fileProblem(error)}`);
    }
    return undefined;
  }
  if (!typia.is<DsseEnvelope>(envelope) || envelope.payloadType !== manifestPayloadType) {
    issues.error(
      'bundle_manifest_invalid',
      manifestEnvelopeFile,
      'not a DSSE envelope of an export manifest',
    );
    return undefined;
  }
  const keyId = envelope.signatures
    .map((signature) => signature.keyid)
    .find((id) => keys.has(id) && verifiesUnder(envelope, id, keys.get(id)!));
  if (keyId === undefined) {
    const signers = envelope.signatures.map((signature) => signature.keyid).join(', ') || 'no key';
    issues.error(
      'bundle_manifest_signature_invalid',
      manifestEnvelopeFile,
      `signed by ${signers}; no signature verifies under ${[...keys.keys()].join(', ') || 'any key'}`,
    );
    return undefined;
  }
  const payload = Buffer.from(envelope.payload, 'base64');
  let manifest: unknown;
  try {
    manifest = JSON.parse(payload.toString('utf8'));
  } catch {
    manifest = undefined;
  }
  const problem = typia.is<ExportManifest>(manifest)
    ? manifestProblem(manifest)
    : 'not a provenance.export_manifest/v1 body';
  if (problem !== undefined) {
    issues.error('bundle_manifest_invalid', manifestEnvelopeFile, `the signed manifest: ${problem}`);
    return undefined;
  }
  checkPlainManifest(dir, payload, issues);
  return { manifest: manifest as ExportManifest, keyId };
}

/** False for a signature that does not verify, or is not even well formed. */
function verifiesUnder(envelope: DsseEnvelope, keyId: string, pem: string): boolean {
  try {
    return verifyEnvelope(envelope, keyId, pem);
  } catch {
    return false;
  }
}

/** manifest.json must hold exactly the signed bytes. */
function checkPlainManifest(dir: string, signed: Buffer, issues: VerifyIssues): void {
  let plain: Buffer;
  try {
    plain = readRegularFile(join(dir, bundleFiles.manifest), maxExportArchiveBytes);
  } catch (error) {
    issues.error('bundle_manifest_mismatch', bundleFiles.manifest, `unreadable: ${fileProblem(error)}`);
    return;
  }
  if (!plain.equals(signed))
    issues.error(
      'bundle_manifest_mismatch',
      bundleFiles.manifest,
      `it is not the manifest ${manifestEnvelopeFile} signs: verify read the signed one`,
    );
}

/** What makes a signed manifest unusable, or undefined. */
function manifestProblem(manifest: ExportManifest): string | undefined {
  const names = manifest.files.map((file) => file.path);
  const reserved = new Set<string>([bundleFiles.manifest, manifestEnvelopeFile]);
  const bad = names.find((name) => !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || reserved.has(name));
  if (bad !== undefined) return `"${bad}" is not a plain file name of the bundle's directory`;
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) return `it lists ${twice} twice`;
  const required =
    manifest.scope === 'run'
      ? Object.values(bundleFiles).filter((name) => name !== bundleFiles.manifest)
      : [bundleFiles.events, bundleFiles.keys];
  const absent = required.find((name) => !names.includes(name));
  if (absent !== undefined) return `a ${manifest.scope} bundle lists ${absent}; this one does not`;
  if (manifest.scope === 'run' && (manifest.run === null || manifest.run_object_hash === null))
    return 'a run bundle names its run and run object';
  const runValue = manifest.run === null ? noRunPartition : partitionValue(manifest.run);
  const pattern = /^host=([^/]+)\/date=\d{4}-\d{2}-\d{2}\/run=([^/]+)$/.exec(manifest.directory);
  if (pattern?.[1] !== partitionValue(manifest.host) || pattern[2] !== runValue)
    return `its directory ${manifest.directory} is not that of host ${manifest.host} and run ${manifest.run}`;
  return undefined;
}
