/**
 * Paging cursors (contract: Paging): an opaque base64url token holding the keyset position, a
 * digest of the run and filters it was made for, and the store format. It never expires; used with
 * other filters or another store format it is refused.
 */
import { createHash } from 'node:crypto';
import type { tags } from 'typia';
import { ProvdError } from '../shared/errors.js';

interface CursorBody {
  /** Store format version. */
  v: number;
  /** Digest of run and filters. */
  f: string;
  /** Keyset position: the last item's key, each part as a string (integers in decimal). */
  k: string[];
}

// room for a key holding a 256-unit identifier (up to 3 UTF-8 bytes a unit) beside an integer
const maxCursorLength = 2048;
// the token's alphabet: base64url without padding
const cursorPattern = '^[A-Za-z0-9_-]+$';
const cursorSyntax = new RegExp(cursorPattern);

/** A cursor token as an answer's `next_cursor` carries it. */
export type CursorToken = string & tags.Pattern<typeof cursorPattern>;

/** A digest binding a cursor to one run and one set of filters. */
export function filterDigest(parts: readonly (string | number | null)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

/** The token for the position after `key`. */
export function encodeCursor(
  formatVersion: number,
  digest: string,
  key: readonly (bigint | number | string)[],
): string {
  const body: CursorBody = { v: formatVersion, f: digest, k: key.map(String) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The integer keyset position of a token, or 400 invalid_cursor saying why it cannot be used here. */
export function decodeCursor(
  token: string,
  formatVersion: number,
  digest: string,
  keyLength: number,
): bigint[] {
  return decodeCursorKey(token, formatVersion, digest, keyLength).map(integerPart);
}

/** An integer part of a decoded key, or 400 invalid_cursor. */
export function integerPart(part: string): bigint {
  if (!/^-?\d{1,20}$/.test(part)) throw invalidCursor('cursor is not a token this daemon issued');
  return BigInt(part);
}

/**
 * The keyset position of a token as strings, for keys with text parts (a caller converts the
 * integer ones), or 400 invalid_cursor saying why it cannot be used here.
 */
export function decodeCursorKey(
  token: string,
  formatVersion: number,
  digest: string,
  keyLength: number,
): string[] {
  if (token.length === 0 || token.length > maxCursorLength || !cursorSyntax.test(token)) {
    throw invalidCursor('cursor is not a token this daemon issued');
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('cursor is not a token this daemon issued');
  }
  if (!isCursorBody(body, keyLength)) throw invalidCursor('cursor is not a token this daemon issued');
  if (body.v !== formatVersion) throw invalidCursor('cursor was issued by another store format');
  if (body.f !== digest) throw invalidCursor('cursor was issued for another run or other filters');
  return body.k;
}

function isCursorBody(value: unknown, keyLength: number): value is CursorBody {
  if (value === null || typeof value !== 'object') return false;
  const { v, f, k } = value as Record<string, unknown>;
  return (
    typeof v === 'number' &&
    typeof f === 'string' &&
    Array.isArray(k) &&
    k.length === keyLength &&
    k.every((part) => typeof part === 'string')
  );
}

function invalidCursor(message: string): ProvdError {
  return new ProvdError('invalid_cursor', message);
}
