/**
 * Reads the archives tar-writer.ts writes (ustar, PAX `path` records), refusing what could write
 * outside the directory it is extracted to: an absolute path, a `..` segment, a link or a device.
 */
import { ProvdError } from '../errors.js';
import type { TarEntry } from './tar-writer.js';

const block = 512;
/** What may follow the end marker: zeros up to one 10,240-byte record (tar's default blocking). */
const maxPadding = 20 * block;

/** Every regular file of `archive`; throws PROVD_ERR_EXPORT_ARCHIVE naming the first bad entry. */
export function readTar(archive: Uint8Array): TarEntry[] {
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries: TarEntry[] = [];
  let offset = 0;
  let paxPath: string | undefined;
  for (;;) {
    if (offset + block > bytes.length) refuse('the archive ends without its end marker (cut short?)');
    const head = bytes.subarray(offset, offset + block);
    if (head.every((byte) => byte === 0)) break;
    checkSum(head);
    const size = parseInt(text(head, 124, 12) || '0', 8);
    const type = text(head, 156, 1) || '0';
    const start = offset + block;
    if (!Number.isSafeInteger(size) || start + size > bytes.length) refuse('an entry runs past the archive');
    const content = bytes.subarray(start, start + size);
    offset = start + Math.ceil(size / block) * block;
    if (type === 'x') {
      paxPath = paxPathOf(content);
      continue;
    }
    const prefix = text(head, 345, 155);
    const name = paxPath ?? (prefix === '' ? text(head, 0, 100) : `${prefix}/${text(head, 0, 100)}`);
    paxPath = undefined;
    if (type === '5') continue; // a directory: made with its files
    if (type !== '0') refuse(`"${name}" is not a regular file (type ${type})`);
    entries.push({ path: safePath(name), content });
  }
  // the end marker is two zero blocks; after it, only a record's zero padding
  const rest = bytes.subarray(offset);
  if (rest.length < 2 * block || rest.length > 2 * block + maxPadding || !rest.every((byte) => byte === 0))
    refuse('the archive does not end with its end marker alone (bytes follow it, or it is cut short)');
  return entries;
}

/** The `path` of a PAX extended header, each record's stated length checked. */
function paxPathOf(content: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const length = Number(content.subarray(at, space).toString('ascii'));
    if (space === -1 || !Number.isSafeInteger(length) || length <= space - at || at + length > content.length)
      refuse('a PAX record is malformed');
    const record = content.subarray(space + 1, at + length - 1).toString('utf8');
    if (record.startsWith('path=')) path = record.slice(5);
    at += length;
  }
  return path;
}

/** `name` if it stays under the extraction directory, else a refusal. */
function safePath(name: string): string {
  if (name === '' || name.startsWith('/') || name.includes('\\') || name.includes('\u0000'))
    refuse(`"${name}" is an absolute or malformed path`);
  if (name.split('/').some((segment) => segment === '..' || segment === ''))
    refuse(`"${name}" has a ".." or empty segment`);
  return name;
}

function text(head: Buffer, start: number, length: number): string {
  const field = head.subarray(start, start + length);
  const end = field.indexOf(0);
  return field
    .subarray(0, end === -1 ? length : end)
    .toString('utf8')
    .trim();
}

function checkSum(head: Buffer): void {
  let sum = 0;
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
  if (parseInt(text(head, 148, 8), 8) !== sum) refuse('a header checksum does not match');
}

function refuse(why: string): never {
  throw new ProvdError('PROVD_ERR_EXPORT_ARCHIVE', `refused the export archive: ${why}`);
}
