/**
 * The host chain's anchor: an append-only file beside the database (`host-chain-anchor.log` in the
 * data dir) that gets one signed line per host chain entry, written and fsynced right after the
 * round that signed the entry committed. The database alone can then no longer lose its newest
 * entries, or all of them, without a trace: verify-host reads the file and finds every anchored
 * entry still in the chain (verify-host-anchor.ts). Each line is a DSSE envelope (the checkpoint
 * key) over canonical JSON `{at, hash, index}`, plus `recovered: true` when the daemon anchored the
 * entry at its start rather than when it was signed (a stop between commit and append, or a store
 * from before the anchor). The file is opened per append, O_APPEND | O_NOFOLLOW, mode 0600.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { canonicalJson } from '../../model/canonical-json.js';
import { verifyEnvelope, signEnvelope, type DsseEnvelope } from '../dsse.js';
import type { SigningKey } from '../signing-key.js';

/** The anchor file's name in the data dir. */
export const hostAnchorFileName = 'host-chain-anchor.log';

/** The payload type of anchor lines: never readable as a checkpoint or a host chain entry. */
export const hostAnchorPayloadType = 'application/vnd.provd.host-anchor+json';

/** What one line anchors: a host chain entry, by index and hash, and when. */
export interface AnchorPoint {
  index: number;
  hash: string;
  /** RFC 3339, when the line was written. */
  at: string;
  recovered?: true;
}

/** One line of the file as read: a checked point, or why it is not one. */
export type AnchorLine =
  | { kind: 'point'; point: AnchorPoint; line: number }
  | { kind: 'unreadable'; line: number }
  | { kind: 'unsigned'; line: number; point: AnchorPoint };

/** Appends signed lines for `entries` and fsyncs; throws when the file cannot take them. */
export function appendAnchor(
  path: string,
  key: SigningKey,
  entries: readonly { index: number; hash: string }[],
  recovered = false,
): AnchorPoint[] {
  if (entries.length === 0) return [];
  const at = new Date().toISOString();
  const points = entries.map(({ index, hash }) => ({
    at,
    hash,
    index,
    ...(recovered && { recovered: true as const }),
  }));
  const text = points
    .map(
      (point) =>
        JSON.stringify(
          signEnvelope(hostAnchorPayloadType, Buffer.from(canonicalJson(point)), key.privateKey, key.keyId),
        ) + '\n',
    )
    .join('');
  // O_NOFOLLOW: a link planted at the path never takes the lines elsewhere
  const fd = openSync(
    path,
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    const stat = fstatSync(fd);
    if ((stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    // a line torn by a crash mid-append stays a line of its own (unreadable), never glued to the next
    const lastByte = Buffer.alloc(1);
    const torn = stat.size > 0 && readSync(fd, lastByte, 0, 1, stat.size - 1) === 1 && lastByte[0] !== 10;
    writeSync(fd, torn ? '\n' + text : text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return points;
}

/**
 * Creates the file, empty, unless it exists: before the first entry commits, so that a stop between
 * that COMMIT and its line leaves an empty file (a crash), never no file (a deletion).
 */
export function createAnchor(path: string): void {
  closeSync(
    openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600),
  );
}

/** Where reading stopped: the offset after the last whole line, and the file's size and identity. */
export interface AnchorRead {
  /** Offset after the last '\n' read: a torn last line (a crash mid-append) is left for later. */
  end: number;
  size: number;
  /** dev:ino, so a file replaced under the same name is read again from its start. */
  identity: string;
  /** Lines read so far in the file (the next line's number is `lines + 1`). */
  lines: number;
}

/** The anchor file's state before any read: nothing read yet. */
export const unreadAnchor: AnchorRead = { end: 0, size: 0, identity: '', lines: 0 };

/** Bytes read from the file at a time: verify's memory stays bounded whatever the file's length. */
const chunkBytes = 1 << 20;

/**
 * Reads the whole lines after `from` (from the file's start when its identity changed or it
 * shrank), handing each to `onLine` with its check against `keys`, until `onLine` answers false
 * (that line is then left unread). Null when the file does not exist.
 */
export function readAnchor(
  path: string,
  from: AnchorRead,
  keys: ReadonlyMap<string, string>,
  onLine: (line: AnchorLine) => boolean,
): AnchorRead | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const identity = `${stat.dev}:${stat.ino}`;
    const restart = identity !== from.identity || stat.size < from.end;
    let offset = restart ? 0 : from.end;
    let lines = restart ? 0 : from.lines;
    let carry = Buffer.alloc(0);
    const buffer = Buffer.alloc(chunkBytes);
    for (let reading = true; reading;) {
      const read = readSync(fd, buffer, 0, chunkBytes, offset + carry.length);
      if (read === 0) break;
      const bytes = Buffer.concat([carry, buffer.subarray(0, read)]);
      let start = 0;
      for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
        if (!onLine(checkLine(bytes.subarray(start, newline).toString('utf8'), lines + 1, keys))) {
          reading = false;
          break;
        }
        lines++;
        start = newline + 1;
      }
      offset += start;
      carry = Buffer.from(bytes.subarray(start));
    }
    return { end: offset, size: stat.size, identity, lines };
  } finally {
    closeSync(fd);
  }
}

/** A line as an envelope signed by a known key over an anchor point. */
function checkLine(text: string, line: number, keys: ReadonlyMap<string, string>): AnchorLine {
  let envelope: DsseEnvelope;
  let point: AnchorPoint;
  try {
    envelope = JSON.parse(text) as DsseEnvelope;
    if (envelope.payloadType !== hostAnchorPayloadType || !Array.isArray(envelope.signatures))
      throw new TypeError();
    point = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as AnchorPoint;
    if (!Number.isSafeInteger(point.index) || point.index < 0 || typeof point.hash !== 'string')
      throw new TypeError();
  } catch {
    return { kind: 'unreadable', line };
  }
  const signed = envelope.signatures.some(({ keyid }) => {
    const key = keys.get(keyid);
    try {
      return key !== undefined && verifyEnvelope(envelope, keyid, key);
    } catch {
      return false; // a signature that is not even well-formed
    }
  });
  return signed ? { kind: 'point', point, line } : { kind: 'unsigned', point, line };
}
