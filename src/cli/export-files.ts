/**
 * Where `provd export` writes what the daemon sent: every archive entry under `--out`, after
 * checking them all first, so a refusal (an entry that would climb out, a file that exists) writes
 * nothing. Files are created exclusively: a file that appears meanwhile is never overwritten.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { ProvdError } from '../shared/errors.js';
import { readTar } from '../shared/tar/tar-reader.js';

/** Extracts `archive` under `out`; returns the bundle directories written (those holding a manifest.json). */
export function extractExport(archive: Uint8Array, out: string): string[] {
  const root = resolve(out);
  const entries = readTar(archive);
  for (const entry of entries) {
    const target = resolve(root, entry.path);
    if (!target.startsWith(root + sep))
      throw new ProvdError(
        'PROVD_ERR_EXPORT_ARCHIVE',
        `refused the export archive: "${entry.path}" leaves --out`,
      );
    if (existsSync(target))
      throw new ProvdError(
        'PROVD_ERR_EXPORT_EXISTS',
        `${target} exists: export into an empty --out, or move the earlier export away`,
      );
  }
  for (const entry of entries) {
    const target = join(root, entry.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, entry.content, { flag: 'wx' });
  }
  return entries
    .filter((entry) => entry.path.endsWith('/manifest.json'))
    .map((entry) => dirname(join(root, entry.path)));
}
