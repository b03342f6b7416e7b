/**
 * Where `provd export` writes what the daemon sent: every archive entry under `--out`, after
 * checking that the archive is an export (each entry a bundle file of a host=/date=/run=
 * directory, each directory with its manifest) and that nothing under `--out` is in the way, so a
 * refusal writes nothing.
 *
 * No link under `--out` is ever followed (`--out` itself may be one: the user named it). Node has
 * no openat(), so each directory is opened with O_DIRECTORY|O_NOFOLLOW through the one above it,
 * as /proc/self/fd/<fd>/<name>: the kernel resolves that through the directory already open, not
 * through a path a local user could swap meanwhile; each file is created there with
 * O_CREAT|O_EXCL|O_NOFOLLOW. A link planted between the check and the write makes the write fail
 * (some files may then be written, none outside --out, none overwritten).
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProvdError } from '../shared/errors.js';
import { readTar } from '../shared/tar/tar-reader.js';
import type { TarEntry } from '../shared/tar/tar-writer.js';
import { bundleFiles, manifestEnvelopeFile } from '../views/export/export-layout.js';

/** The path of an export's entry: a bundle file in a `host=/date=/run=` directory. */
const entryPath = /^(host=[^/]+\/date=\d{4}-\d{2}-\d{2}\/run=[^/]+)\/([^/]+)$/;
const entryNames = new Set<string>([...Object.values(bundleFiles), manifestEnvelopeFile]);

/**
 * Extracts `archive` under `out`; returns the bundle directories written (those holding a
 * manifest.json). `scope` says what was asked: a run's export holds exactly one bundle.
 */
export function extractExport(archive: Uint8Array, out: string, scope: 'run' | 'range'): string[] {
  const root = resolve(out);
  const entries = readTar(archive);
  const dirs = checkExport(entries, scope);
  for (const entry of entries) checkTarget(root, entry.path);
  mkdirSync(root, { recursive: true });
  const rootFd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const entry of entries) writeEntry(rootFd, root, entry);
  } finally {
    closeSync(rootFd);
  }
  return dirs.map((dir) => join(root, dir));
}

/** The bundle directories of an export, or a refusal saying why the archive is not one. */
function checkExport(entries: readonly TarEntry[], scope: 'run' | 'range'): string[] {
  const dirs = new Map<string, Set<string>>();
  for (const entry of entries) {
    const match = entryPath.exec(entry.path);
    if (match === null || !entryNames.has(match[2]!))
      notAnExport(`"${entry.path}" is not a file of a host=/date=/run= bundle`);
    const names = dirs.get(match[1]!) ?? new Set<string>();
    if (names.has(match[2]!)) notAnExport(`"${entry.path}" is in it twice`);
    dirs.set(match[1]!, names.add(match[2]!));
  }
  for (const [dir, names] of dirs)
    if (!names.has(bundleFiles.manifest)) notAnExport(`${dir} has no manifest.json`);
  if (scope === 'run' && dirs.size !== 1)
    notAnExport(`a run's export is one bundle; this holds ${dirs.size}`);
  return [...dirs.keys()];
}

function notAnExport(why: string): never {
  throw new ProvdError('PROVD_ERR_EXPORT_ARCHIVE', `the daemon's answer is not a provd export: ${why}`);
}

/** Refuses, before anything is written, a link or non-directory on the way to `path`, or a file already there. */
function checkTarget(root: string, path: string): void {
  const segments = path.split('/');
  let at = root;
  for (const [i, segment] of segments.entries()) {
    at = join(at, segment);
    let stats;
    try {
      stats = lstatSync(at);
    } catch {
      return; // missing: made by the write
    }
    if (i === segments.length - 1)
      throw new ProvdError(
        'PROVD_ERR_EXPORT_EXISTS',
        `${at} exists: export into an empty --out, or move the earlier export away`,
      );
    if (stats.isSymbolicLink() || !stats.isDirectory()) throw linkRefusal(at);
  }
}

function linkRefusal(at: string): ProvdError {
  return new ProvdError(
    'PROVD_ERR_EXPORT_LINK',
    `${at} is a link or not a directory: provd export writes through no link under --out; remove it, or export into an empty --out`,
  );
}

/** Writes one entry below the open directory `rootFd`, never following a link (see the file's comment). */
function writeEntry(rootFd: number, root: string, entry: TarEntry): void {
  const segments = entry.path.split('/');
  const file = segments.pop()!;
  let fd = rootFd;
  let at = root;
  try {
    for (const segment of segments) {
      at = join(at, segment);
      const below = `/proc/self/fd/${fd}/${segment}`;
      try {
        mkdirSync(below, { mode: 0o777 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let next: number;
      try {
        next = openSync(below, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'ENOTDIR') throw linkRefusal(at);
        throw error;
      }
      if (fd !== rootFd) closeSync(fd);
      fd = next;
    }
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    let out: number;
    try {
      out = openSync(`/proc/self/fd/${fd}/${file}`, flags, 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new ProvdError(
          'PROVD_ERR_EXPORT_EXISTS',
          `${join(at, file)} exists: export into an empty --out, or move the earlier export away`,
        );
      throw error;
    }
    try {
      for (let done = 0; done < entry.content.byteLength;)
        done += writeSync(out, entry.content, done, entry.content.byteLength - done);
    } finally {
      closeSync(out);
    }
  } finally {
    if (fd !== rootFd) closeSync(fd);
  }
}
