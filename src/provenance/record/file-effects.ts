/**
 * What a recorded command did to the files under its `cwd`: a snapshot before and after (regular
 * files and symlinks, without crossing into other filesystems), compared into created, modified
 * and deleted entries with content hashes. Bounded in entries and hashed bytes; whatever a bound
 * cut is said in `complete`, `compared` and `omitted`, never silently missing, and no effect is
 * claimed where either snapshot did not look (snapshot-coverage.ts).
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { hashFile, sha256Text } from './hash-file.js';
import { IgnoreMatch, type IgnoredPaths } from './ignore-match.js';
import { isUnseen, notCompared, type FileEffectsCompared, type UnseenParts } from './snapshot-coverage.js';

/** Bounds of one snapshot and of the effects kept. */
export interface SnapshotLimits {
  maxEntries: number;
  /** A larger file is compared by size and times only (its hash is null). */
  maxFileBytes: number;
  /** Bytes hashed per snapshot in all; past it, files are compared by size and times only. */
  maxHashedBytes: number;
  maxEffects: number;
  /** Time a snapshot may spend hashing; past it, files are compared by size and times only. */
  hashingMs: number;
}

export const defaultSnapshotLimits: SnapshotLimits = {
  maxEntries: 20_000,
  maxFileBytes: 16 * 1024 * 1024,
  maxHashedBytes: 512 * 1024 * 1024,
  maxEffects: 1000,
  hashingMs: 10_000,
};

interface Entry {
  kind: 'file' | 'symlink';
  size: number;
  /** Size, mtime, ctime and inode: equal stamps mean no change was made through the filesystem. */
  stamp: string;
  hash: string | null;
  /** Not hashed because the snapshot's time bound on hashing had passed when the walk reached it. */
  unhashed: boolean;
}

/** The state of a directory tree at one moment. */
export interface Snapshot {
  entries: Map<string, Entry>;
  /** Why the snapshot is partial, if it is. */
  incomplete: string | null;
  /** Ignored entries the walk skipped (a directory counts once, its contents not at all). */
  skipped: number;
  /** What the walk did not see: a bound cut it, or it could not read there. */
  unseen: UnseenParts;
}

/** What a snapshot skips: git's ignored paths, and `.git` entries when git said them. */
export interface SnapshotIgnore {
  paths: IgnoredPaths;
  skipGitDirs: boolean;
}

export const ignoreNothing: SnapshotIgnore = { paths: [], skipGitDirs: false };

/** One change to a path under cwd. */
export interface FileEffect {
  /** Relative to cwd. */
  path: string;
  effect: 'created' | 'modified' | 'deleted';
  kind: 'file' | 'symlink';
  /** Size after (before, for deleted). */
  size: number;
  /** sha256 of the content (a symlink's target text) before; null when created or not hashed. */
  hash_before: string | null;
  hash_after: string | null;
}

/** The effects, and what bounded them. */
export interface FileEffects {
  effects: FileEffect[];
  /** False when a snapshot was partial: effects outside what it saw are unknown. */
  complete: boolean;
  /** Why not complete. */
  incomplete_reason: string | null;
  /** Effects found beyond maxEffects, counted, not listed. */
  omitted: number;
  /** When not complete: what was compared, and what not; null when complete. */
  compared: FileEffectsCompared | null;
}

/**
 * Snapshots `root` within the limits; an unreadable subdirectory makes it partial, not failed. With
 * synchronous calls: the daemon runs it on a snapshot thread of its own (snapshot-pool.ts), so no
 * file it reads holds a thread of the libuv pool the store's DuckDB calls run on.
 */
export function snapshot(root: string, limits: SnapshotLimits, ignore = ignoreNothing): Snapshot {
  const entries = new Map<string, Entry>();
  const skip = new IgnoreMatch(ignore.paths, ignore.skipGitDirs);
  let incomplete: string | null = null;
  let hashed = 0;
  let skipped = 0;
  const unseen: UnseenParts = new Map();
  const rootStats = attempt(() => lstatSync(root));
  if (rootStats instanceof Error) {
    // a command that removed its own cwd removed everything under it
    if (rootStats.code === 'ENOENT') return { entries, incomplete: null, skipped, unseen };
    unseen.set('', { from: null, reason: 'unreadable' });
    const incomplete = `cannot read cwd: ${rootStats.code ?? rootStats.message}`;
    return { entries, incomplete, skipped, unseen };
  }
  const rootDevice = rootStats.dev;
  const deadline = Date.now() + limits.hashingMs;
  const pending = [root];
  // past the entry bound the walk stops: a cwd of `/` must not read the whole filesystem
  while (pending.length > 0 && entries.size < limits.maxEntries) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      incomplete ??= `cannot read ${relative(root, dir) || '.'}: ${(error as NodeJS.ErrnoException).code}`;
      unseen.set(relative(root, dir), { from: null, reason: 'unreadable' });
      continue;
    }
    const paths = names.sort().map((name) => join(dir, name));
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i]!;
      const name = basename(path);
      const stats = attempt(() => lstatSync(path));
      if (stats instanceof Error) {
        if (gone(stats)) continue; // removed while we looked (or a .gitignore not there)
        // there, but not to be looked at (a directory readable and not searchable): unknown, not gone
        incomplete ??= `cannot read ${relative(root, path)}: ${stats.code ?? stats.message}`;
        unseen.set(relative(root, path), { from: null, reason: 'unreadable' });
        continue;
      }
      if (skip.skips(relative(root, path), name, stats.isDirectory())) {
        skipped++;
        // an ignored directory's own rules stay in sight: a command that hides one shows how
        if (stats.isDirectory() && name !== '.git') paths.splice(i + 1, 0, join(path, '.gitignore'));
        continue;
      }
      if (stats.isDirectory()) {
        if (stats.dev === rootDevice) pending.push(path);
        else {
          // another filesystem mounted here: not walked, so not compared (a mount made by the
          // command would otherwise "delete" every file the first snapshot saw beneath it)
          incomplete ??= `${relative(root, path)} is another filesystem: not compared`;
          unseen.set(relative(root, path), { from: null, reason: 'other_filesystem' });
        }
        continue;
      }
      if (!stats.isFile() && !stats.isSymbolicLink()) continue;
      if (entries.size >= limits.maxEntries) {
        incomplete ??= `more than ${limits.maxEntries} files under cwd`;
        // the names from this one on (an ignored directory's .gitignore: from that directory on)
        const from = relative(dir, path).split('/')[0]!;
        unseen.set(relative(root, dir), { from, reason: 'file_limit' });
        break;
      }
      const kind = stats.isFile() ? 'file' : 'symlink';
      let hash: string | null = null;
      let unhashed = false;
      if (kind === 'symlink') {
        const target = attempt(() => readlinkSync(path));
        hash = target instanceof Error ? null : sha256Text(target);
      } else if (Date.now() > deadline) {
        incomplete ??= `hashing stopped after ${limits.hashingMs} ms: later files compared by size, mtime and inode only`;
        unhashed = true;
      } else if (stats.size <= limits.maxFileBytes && hashed + stats.size <= limits.maxHashedBytes) {
        const read = hashFile(path, stats, Math.min(limits.maxFileBytes, limits.maxHashedBytes - hashed));
        hash = read.hash;
        hashed += read.bytes;
      }
      const stamp = `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
      entries.set(relative(root, path), { kind, size: stats.size, stamp, hash, unhashed });
    }
  }
  if (pending.length > 0) incomplete ??= `more than ${limits.maxEntries} files under cwd`;
  for (const dir of pending) unseen.set(relative(root, dir), { from: null, reason: 'file_limit' });
  return { entries, incomplete, skipped, unseen };
}

/** An lstat error that means the entry is not there (any more). */
function gone(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ENOENT' || error.code === 'ENOTDIR';
}

/**
 * Compares two snapshots of one directory. With the ignore lists each was taken with, a path either
 * list skips is left out of both: a command that changed what is ignored neither "deletes" what
 * became ignored nor "creates" what stopped being ignored. A path either snapshot did not see is
 * left out too: a file past one snapshot's cut is neither "deleted" nor "created".
 */
export function compareSnapshots(
  before: Snapshot,
  after: Snapshot,
  limits: SnapshotLimits,
  ignores: readonly SnapshotIgnore[] = [],
): FileEffects {
  const matches = ignores.map((ignore) => new IgnoreMatch(ignore.paths, ignore.skipGitDirs));
  const kept = (path: string): boolean => !matches.some((match) => match.covers(path));
  const seen = (path: string): boolean => !isUnseen(before.unseen, path) && !isUnseen(after.unseen, path);
  const found: FileEffect[] = [];
  let byMetadata = 0;
  for (const [path, now] of after.entries) {
    if (!kept(path)) continue;
    const then = before.entries.get(path);
    if (then === undefined) {
      if (seen(path)) found.push(effect(path, 'created', now, null, now.hash));
      continue;
    }
    const unhashed = (then.unhashed || now.unhashed) && (then.hash === null || now.hash === null);
    if (unhashed) byMetadata++;
    if (changed(then, now, unhashed)) found.push(effect(path, 'modified', now, then.hash, now.hash));
  }
  for (const [path, then] of before.entries) {
    if (!after.entries.has(path) && kept(path) && seen(path))
      found.push(effect(path, 'deleted', then, then.hash, null));
  }
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const reason = before.incomplete ?? after.incomplete;
  return {
    effects: found.slice(0, limits.maxEffects),
    complete: reason === null,
    incomplete_reason: reason,
    omitted: Math.max(0, found.length - limits.maxEffects),
    compared:
      reason === null
        ? null
        : { ...notCompared(before.unseen, after.unseen), compared_by_metadata: byMetadata },
  };
}

/**
 * Content changed: by hash when both are known, else by the stamp. A file left unhashed by the time
 * bound is compared by size, mtime and inode: a ctime alone (a chmod, a new hard link) says nothing
 * of its content, where a hash would have said "unchanged".
 */
function changed(then: Entry, now: Entry, unhashed: boolean): boolean {
  if (then.kind !== now.kind) return true;
  if (then.hash !== null && now.hash !== null) return then.hash !== now.hash;
  if (unhashed) return withoutCtime(then.stamp) !== withoutCtime(now.stamp);
  return then.stamp !== now.stamp;
}

/** `size:mtime:ino` of a stamp `size:mtime:ctime:ino`. */
function withoutCtime(stamp: string): string {
  const [size, mtime, , inode] = stamp.split(':');
  return `${size}:${mtime}:${inode}`;
}

function effect(
  path: string,
  kind: FileEffect['effect'],
  entry: Entry,
  hashBefore: string | null,
  hashAfter: string | null,
): FileEffect {
  return {
    path,
    effect: kind,
    kind: entry.kind,
    size: entry.size,
    hash_before: hashBefore,
    hash_after: hashAfter,
  };
}

/** `call`'s value, or the error it threw. */
function attempt<T>(call: () => T): T | NodeJS.ErrnoException {
  try {
    return call();
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}
