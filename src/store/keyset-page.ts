/**
 * The opening every keyset-paged query shares: the run it is of (404 when nobody named it), and a
 * cursor bound to that run, the query's filters and the store format (model/cursor.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  decodeCursorKey,
  encodeCursor,
  filterDigest,
  integerPart,
  type CursorToken,
} from '../model/cursor.js';
import { requireRun } from './run-exists.sql.js';

/** What the client asked for: the run (null: every run) and where the page starts (null: the first). */
export interface PageAsked {
  run: string | null;
  cursor: string | null;
}

/** Where a page starts, and how the next one is named. */
export interface KeysetPage {
  /** The key the page starts after, each part as text (integers in decimal); null on the first page. */
  after: string[] | null;
  /** `after` of a key of integers (400 invalid_cursor for a part that is not one). */
  afterIntegers(): bigint[] | null;
  /** The first part of `after` as an integer, or `first` on the first page. */
  afterInteger(first: bigint): bigint;
  /** The token of the page after one that ended at `key`. */
  next(key: readonly (bigint | number | string)[]): CursorToken;
}

/**
 * Checks the run (run_not_found; pass run null for a query that reads it with its page) and the
 * cursor (invalid_cursor): a cursor is bound to `filter` (the query's name, its run and filters),
 * to the store format, and holds a key of `keyLength` parts.
 */
export async function keysetPage(
  connection: DuckDBConnection,
  asked: PageAsked,
  formatVersion: number,
  filter: readonly (string | number | null)[],
  keyLength: number,
): Promise<KeysetPage> {
  if (asked.run !== null) await requireRun(connection, asked.run);
  const digest = filterDigest(filter);
  const after =
    asked.cursor === null ? null : decodeCursorKey(asked.cursor, formatVersion, digest, keyLength);
  return {
    after,
    afterIntegers: () => after?.map(integerPart) ?? null,
    afterInteger: (first) => (after === null ? first : integerPart(after[0]!)),
    next: (key) => encodeCursor(formatVersion, digest, key),
  };
}
