/**
 * An uncompressed POSIX (ustar) tar archive written by hand: regular files only, mode 0644, mtime
 * given. A path longer than ustar's 100 bytes goes in a PAX `path` record before its entry, so run
 * ids of any length keep their directory. Read with `tar x` or tar-reader.ts.
 */

/** One file of an archive: a relative `/`-separated path and its bytes. */
export interface TarEntry {
  path: string;
  content: Uint8Array;
}

const block = 512;

/** The archive of `entries`, two zero blocks at its end. */
export function writeTar(entries: readonly TarEntry[], mtimeSeconds: number): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const name = Buffer.from(entry.path, 'utf8');
    if (name.length > 100) {
      const record = paxRecord('path', entry.path);
      parts.push(header('PaxHeader', record.length, 'x', mtimeSeconds), padded(record));
    }
    const short = name.length > 100 ? entry.path.slice(-90).replace(/^[^/]*\//, '') : entry.path;
    parts.push(header(short, entry.content.byteLength, '0', mtimeSeconds), padded(entry.content));
  }
  parts.push(Buffer.alloc(2 * block));
  return Buffer.concat(parts);
}

/** A PAX extended header record: "<length> <key>=<value>\n", its length counting itself. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  let length = bodyLength + 1;
  // the length's own digits count: grow it until it states itself
  while (length !== bodyLength + String(length).length) length = bodyLength + String(length).length;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function header(name: string, size: number, type: '0' | 'x', mtimeSeconds: number): Buffer {
  const out = Buffer.alloc(block);
  out.write(name, 0, 100, 'utf8');
  out.write(octal(0o644, 8), 100, 'ascii');
  out.write(octal(0, 8), 108, 'ascii'); // uid
  out.write(octal(0, 8), 116, 'ascii'); // gid
  out.write(octal(size, 12), 124, 'ascii');
  out.write(octal(mtimeSeconds, 12), 136, 'ascii');
  out.write('        ', 148, 'ascii'); // checksum counted as spaces
  out.write(type, 156, 'ascii');
  out.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of out) sum += byte;
  out.write(octal(sum, 7) + ' ', 148, 'ascii');
  return out;
}

/** `value` in octal, zero-padded to `width - 1` digits and NUL-terminated. */
function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\u0000';
}

/** The bytes and the zeros up to the next block. */
function padded(content: Uint8Array): Buffer {
  const rest = content.byteLength % block;
  const tail = rest === 0 ? Buffer.alloc(0) : Buffer.alloc(block - rest);
  return Buffer.concat([Buffer.from(content.buffer, content.byteOffset, content.byteLength), tail]);
}
