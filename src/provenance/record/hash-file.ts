/** The content hashes of a snapshot: a file's bytes read safely and within a bound, a symlink's target. */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** `sha256:<hex>` of a text (a symlink's target). */
export function sha256Text(text: string): string {
  return 'sha256:' + createHash('sha256').update(text).digest('hex');
}

/**
 * Hashes the regular file `lstat` saw at `path`, reading at most `maxBytes`: opened without
 * following a symlink and without blocking (a FIFO swapped in would hang a thread of the pool the
 * store shares), and only if it is still that file. Procfs and sysfs files say size 0 and read
 * on; past `maxBytes` the file gets no hash. A null hash compares the file by size and times.
 */
export function hashFile(
  path: string,
  seen: Stats,
  maxBytes: number,
): { hash: string | null; bytes: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { hash: null, bytes: 0 }; // gone, swapped for a symlink, or unreadable
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.ino !== seen.ino || stats.dev !== seen.dev) return { hash: null, bytes: 0 };
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(64 * 1024);
    let bytes = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, maxBytes + 1 - bytes), null);
      if (bytesRead === 0) return { hash: 'sha256:' + hash.digest('hex'), bytes };
      bytes += bytesRead;
      if (bytes > maxBytes) return { hash: null, bytes };
      hash.update(buffer.subarray(0, bytesRead));
    }
  } catch {
    return { hash: null, bytes: 0 };
  } finally {
    closeSync(fd);
  }
}
