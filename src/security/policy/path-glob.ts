/**
 * Path globs for policy rules: `*` and `?` match within one path segment, `**` across segments
 * (`/etc/**` is everything below /etc). Matched against the normalized path the event carries, so
 * `/etc/ssh/../shadow` is `/etc/shadow` to them.
 */
import { posix } from 'node:path';
import { needsNormalizing } from '../../telemetry/secret-path.js';

/** A glob as an anchored RegExp; throws, naming the glob, for an empty one. */
export function compileGlob(glob: string): RegExp {
  if (glob === '') throw new Error('an empty path glob matches nothing');
  let pattern = '';
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at]!;
    if (char === '*' && glob[at + 1] === '*') {
      // `**/` is any number of whole segments, `**` at the end anything below
      if (glob[at + 2] === '/') {
        pattern += '(?:[^/]*/)*';
        at += 2;
      } else {
        pattern += '.*';
        at += 1;
      }
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/**
 * The path as the policy compares it: `.`, `..` and repeated slashes resolved; null for none. Most
 * paths have nothing to resolve, and posix.normalize costs 3-4x the check (every judged file event).
 */
export function normalizedPath(path: string | null | undefined): string | null {
  if (path === null || path === undefined || path === '') return null;
  return needsNormalizing(path) ? posix.normalize(path) : path;
}
