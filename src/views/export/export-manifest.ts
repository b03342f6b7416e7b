/**
 * manifest.json of an export bundle (`provenance.export_manifest/v1`): what was exported, from
 * which host, into which directory, and every file with its sha256, size and row count. The daemon
 * signs the manifest's exact bytes with its checkpoint key into manifest.dsse.json (a DSSE
 * envelope), so what a bundle claims to be (its scope, run, host, directory, files) is a signed
 * statement `provd verify --bundle --key` checks before it trusts any of it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatementSigner } from '../../provenance/signing-key.js';
import { bundleFiles, manifestEnvelopeFile } from './export-layout.js';

/** The DSSE payload type of a signed export manifest: its signature can never pass for a checkpoint's. */
export const manifestPayloadType = 'application/vnd.provd.export-manifest+json';

/** One file of a bundle, by its name in the bundle's directory. */
export interface ManifestFile {
  path: string;
  /** `sha256:<hex>` of the file's bytes */
  sha256: string;
  bytes: number;
  /** rows of a Parquet file; 0 for JSON files */
  rows: number;
}

/** The manifest of one bundle directory: one run, or the events of a range tied to one run (or none). */
export interface ExportManifest {
  schema_version: 'provenance.export_manifest/v1';
  /** `run`: the whole run, verifiable; `range`: the events of [from, to) only, each event hash checkable */
  scope: 'run' | 'range';
  host: string;
  /** the bundle's directory, `host=<host>/date=<YYYY-MM-DD>/run=<run>`: the partition values engines read from its path */
  directory: string;
  /** the run, or null for the events no run claimed (`run=_none`) */
  run: string | null;
  /** run scope: the run's first and last event times (null when it has no events); range scope: the request */
  time_range: { from: string | null; to: string | null };
  exported_at: string;
  /** the run's run object (run scope), the root `provd verify --bundle` starts from */
  run_object_hash: string | null;
  /** run scope: events of the run committed after the seal the export waited for, left to the next export; range scope: 0 */
  unsealed_events: number;
  files: ManifestFile[];
  /** every graph object of the run (run scope), in chain order */
  objects: string[];
}

/** `sha256:<hex>` of a file's bytes. */
export function fileDigest(path: string): string {
  return `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
}

/** The listing of `rows` by file name in `dir`, each hashed now (the files are complete). */
export function describeFiles(dir: string, rows: ReadonlyMap<string, number>): ManifestFile[] {
  return [...rows].map(([path, count]) => {
    const bytes = readFileSync(join(dir, path));
    return {
      path,
      sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      bytes: bytes.byteLength,
      rows: count,
    };
  });
}

/** Writes manifest.json into `dir`, and its DSSE envelope signed by `signer` beside it; returns both names. */
export function writeManifest(dir: string, manifest: ExportManifest, signer: StatementSigner): string[] {
  const bytes = Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8');
  writeFileSync(join(dir, bundleFiles.manifest), bytes, { flag: 'wx' });
  const envelope = signer.sign(manifestPayloadType, bytes);
  writeFileSync(join(dir, manifestEnvelopeFile), JSON.stringify(envelope, null, 2) + '\n', { flag: 'wx' });
  return [bundleFiles.manifest, manifestEnvelopeFile];
}

/** Writes keys.json (`provenance.keys/v1`): the keys that signed the bundle's checkpoints, and the manifest's. */
export function writeKeys(
  dir: string,
  keys: readonly { key_id: string; public_key_pem: string }[],
  signer: StatementSigner,
): void {
  const all = new Map(keys.map((key) => [key.key_id, key.public_key_pem]));
  all.set(signer.keyId, signer.publicKeyPem);
  const body = {
    schema_version: 'provenance.keys/v1',
    keys: [...all].map(([key_id, public_key_pem]) => ({
      key_id,
      public_key_pem,
      algorithm: 'ed25519',
      current: key_id === signer.keyId,
    })),
  };
  writeFileSync(join(dir, bundleFiles.keys), JSON.stringify(body, null, 2) + '\n', { flag: 'wx' });
}
