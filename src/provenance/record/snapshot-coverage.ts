/**
 * The parts of cwd a snapshot did not see, and the part two snapshots compared. A snapshot cut
 * short (its file bound, a directory or entry it could not read) knows nothing of what lies past
 * the cut: an effect is claimed only for a path both snapshots saw, whatever each cut reached (two
 * cuts at one file count can fall on different files: a new file moves the second one).
 */
import type { Count } from '../../shared/schema/wire-types.js';

/**
 * Why a part was not seen: the snapshot's file bound, the daemon could not read it, or another
 * filesystem is mounted there (a snapshot stays on cwd's own).
 */
export type UnseenReason = 'file_limit' | 'unreadable' | 'other_filesystem';

/** A part of cwd a snapshot did not see: a path and all under it, or a directory's names from `from` on. */
export interface UnseenPart {
  /** null: the path and everything under it; else the directory's entries whose name sorts at or after it. */
  from: string | null;
  reason: UnseenReason;
}

/** The parts a snapshot did not see, by path relative to cwd (`''`: cwd itself). */
export type UnseenParts = Map<string, UnseenPart>;

/** One part of cwd whose file effects were not compared. */
export interface NotComparedPart {
  /** Relative to cwd; `.` for cwd itself. */
  path: string;
  /**
   * null: the path and everything under it; else only the directory's entries whose name sorts at
   * or after this one (by UTF-16 code units, the order the snapshots walk a directory in).
   */
  from: string | null;
  /**
   * `file_limit`: a snapshot stopped at its file bound; `unreadable`: the daemon could not read it;
   * `other_filesystem`: another filesystem is mounted there.
   */
  reason: UnseenReason;
}

/** The part of cwd that was compared, said when a snapshot was cut short. */
export interface FileEffectsCompared {
  /**
   * What was not compared, by path: no effect is claimed there (everything else under cwd, less what
   * git ignores, was). The outermost parts, at most 100.
   */
  not_compared: NotComparedPart[];
  /** Parts not compared beyond those listed. */
  not_compared_omitted: Count;
  /**
   * Files both snapshots saw whose content was compared by size, mtime and inode only, the time
   * bound on hashing having passed: a change that keeps all three is not seen.
   */
  compared_by_metadata: Count;
}

/** Parts listed in `not_compared`. */
export const maxNotComparedListed = 100;

/** Whether `path` (relative to cwd) lies in a part the snapshot did not see. */
export function isUnseen(parts: UnseenParts, path: string): boolean {
  return parts.size > 0 && within(parts, path, true);
}

/** The parts either snapshot did not see, merged: the outermost of them by path, at most `max`. */
export function notCompared(
  before: UnseenParts,
  after: UnseenParts,
  max = maxNotComparedListed,
): Pick<FileEffectsCompared, 'not_compared' | 'not_compared_omitted'> {
  const merged: UnseenParts = new Map(before);
  for (const [path, part] of after) {
    const had = merged.get(path);
    if (had === undefined || wider(part, had)) merged.set(path, part);
  }
  const outermost = [...merged]
    .filter(([path]) => !within(merged, path, false))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const listed = outermost.slice(0, max).map(([path, part]) => ({
    path: path === '' ? '.' : path,
    from: part.from,
    reason: part.reason,
  }));
  return { not_compared: listed, not_compared_omitted: outermost.length - listed.length };
}

/** Whether part `a` of a directory takes in more of it than part `b`. */
function wider(a: UnseenPart, b: UnseenPart): boolean {
  if (a.from === null) return b.from !== null;
  return b.from !== null && a.from < b.from;
}

/**
 * Whether a part above `path` takes it in (a whole directory, or a directory's names from a cut on),
 * or, with `self`, a part at `path` itself does.
 */
function within(parts: UnseenParts, path: string, self: boolean): boolean {
  if (path !== '') {
    let dir = '';
    let start = 0;
    for (;;) {
      const slash = path.indexOf('/', start);
      const name = slash === -1 ? path.slice(start) : path.slice(start, slash);
      const part = parts.get(dir);
      if (part !== undefined && (part.from === null || name >= part.from)) return true;
      if (slash === -1) break;
      dir = path.slice(0, slash);
      start = slash + 1;
    }
  }
  return self && parts.get(path)?.from === null;
}
