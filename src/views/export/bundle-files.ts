/**
 * The files of a bundle as `provd verify --bundle` reads them: each opened by its exact name with
 * O_NOFOLLOW (a link is refused, never followed), hashed as it is copied into a private staging
 * directory, and only that copy handed to DuckDB. So the bytes verified are the bytes hashed, a
 * file swapped after the check is never read, and DuckDB, which reads every path as a glob
 * pattern (1.5 has no option to turn that off), is only given paths provd made.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What DuckDB's file globbing treats as a pattern: a path holding one is never given to it. */
const globCharacters = /[*?[\]{}\\]/;

/** Opens a regular file for reading; a link, a directory, a FIFO or a device is refused with why. */
function openRegular(path: string): number {
  // O_NONBLOCK: opening a FIFO planted under a listed name must not hang verify
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error('is not a regular file');
  }
  return fd;
}

/** The bytes of the regular file `path` (not a link), at most `maxBytes`. */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  const fd = openRegular(path);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw new Error(`is over ${maxBytes} bytes`);
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, null);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** Copies the regular file `from` to the new file `to`, hashing what it copies: `sha256:<hex>`. */
export function copyHashed(from: string, to: string): string {
  const input = openRegular(from);
  try {
    const output = openSync(to, 'wx', 0o600);
    try {
      const hash = createHash('sha256');
      const chunk = Buffer.alloc(1024 * 1024);
      for (let n = readSync(input, chunk); n > 0; n = readSync(input, chunk)) {
        const part = chunk.subarray(0, n);
        hash.update(part);
        writeSync(output, part);
      }
      return `sha256:${hash.digest('hex')}`;
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

/** A fresh private directory (0700) for staged copies, whose path DuckDB cannot read as a pattern. */
export function makeStagingDir(): string {
  const parent = tmpdir();
  if (globCharacters.test(parent))
    throw new Error(
      `the temporary directory ${parent} holds a glob character (* ? [ ] { } \\): set TMPDIR to a plain path`,
    );
  // mkdtemp adds letters and digits only
  return mkdtempSync(join(parent, 'provd-verify-'));
}

/** Why an open or read failed, in words: a link is named as one. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'is a link: verify follows none';
  if (code === 'ENOENT') return 'is not in the bundle';
  return error instanceof Error ? error.message : String(error);
}
