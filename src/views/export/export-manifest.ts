/**
 * manifest.json of an export bundle (`provenance.export_manifest/v1`): what was exported, from
 * which host, and every file with its sha256, size and row count, so a copy can be checked with
 * nothing but the bundle (`provd verify --bundle`). The signed checkpoint, not the manifest, is
 * the bundle's trust root: the manifest only says which bytes left the daemon.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFiles } from './export-layout.js';

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

/** Writes manifest.json into `dir`. */
export function writeManifest(dir: string, manifest: ExportManifest): void {
  writeFileSync(join(dir, bundleFiles.manifest), JSON.stringify(manifest, null, 2) + '\n', { flag: 'wx' });
}
