/**
 * Checks a bundle's directory against its signed manifest and stages its files for DuckDB: the
 * directory is the one the manifest names (engines read host, date and run from the path), it
 * holds nothing the manifest does not list (no file, directory or link: a `x=1/events.parquet`
 * below it would join every fleet query), and each listed file hashes, as it is copied, to its
 * signed digest.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { VerifyIssues } from '../../provenance/verify-issues.js';
import { copyHashed, fileProblem, makeStagingDir } from './bundle-files.js';
import { bundleFiles, manifestEnvelopeFile } from './export-layout.js';
import type { ExportManifest } from './export-manifest.js';

/** Reports a bundle directory whose last three path segments are not the signed `host=/date=/run=`. */
export function checkDirectory(dir: string, manifest: ExportManifest, issues: VerifyIssues): void {
  const actual = resolve(dir).split(sep).slice(-3).join('/');
  if (actual !== manifest.directory)
    issues.error(
      'bundle_directory_mismatch',
      actual,
      `the signed manifest puts this bundle in ${manifest.directory}: engines would read another host, date or run from its path`,
    );
}

/**
 * Copies every listed file of `dir` into a fresh private directory, hashing each as it goes, and
 * reports unlisted entries; returns the staging directory when every file is there and intact,
 * else removes it and returns undefined.
 */
export function stageBundle(dir: string, manifest: ExportManifest, issues: VerifyIssues): string | undefined {
  const before = issues.errors;
  const listed = new Set(manifest.files.map((file) => file.path));
  for (const name of readdirSync(dir).sort())
    if (name !== bundleFiles.manifest && name !== manifestEnvelopeFile && !listed.has(name))
      issues.error('bundle_file_unlisted', name, 'in the bundle, not in its signed manifest');
  const staged = makeStagingDir();
  for (const file of manifest.files) {
    let digest: string;
    try {
      digest = copyHashed(join(dir, file.path), join(staged, file.path));
    } catch (error) {
      issues.error(
        'bundle_file_missing',
        file.path,
        `listed in the signed manifest; it ${fileProblem(error)}`,
      );
      continue;
    }
    if (digest !== file.sha256)
      issues.error('bundle_file_mismatch', file.path, `its bytes do not hash to ${file.sha256}`);
  }
  if (issues.errors === before) return staged;
  rmSync(staged, { recursive: true, force: true });
  return undefined;
}
