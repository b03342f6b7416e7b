/**
 * What every view of a run hides by default, with a count: the opens every exec makes before its
 * command does anything, the dynamic loader's (ld.so.cache, the shared objects it maps) and the C
 * library's locale and gconv files. One SQL predicate over an events row, evaluated once per event
 * as its batch is stored (the `loader_locale` column, set-wise in the commit's INSERT) and over the
 * rows stored before the column existed when the store opens; views read the column, never the
 * predicate. docs/cli.md ("Loader and locale opens") states the same rule for users.
 *
 * An event is folded only when all of these hold:
 * - it is a `file_open` (never a file_write, a secret_path or any other type);
 * - its `flags` say read-only: the text form's access mode is O_RDONLY and it names none of O_WRONLY,
 *   O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE; or the integer form has access mode 0 and neither O_CREAT
 *   nor O_TRUNC. An open without flags is not known to be read-only, so it is shown;
 * - the policy did not judge it (`judged`: anything but a plain allow is never hidden);
 * - its path was resolved (no `unresolved`, nor the sensor's `path_unresolved`), is absolute and holds no `.`, `..` or empty segment;
 * - the path is `/etc/ld.so.cache`; or a shared object (`NAME.so` or `NAME.so.1.2...`) under a
 *   system library directory (`/lib`, `/lib32`, `/lib64`, `/libx32`, `/usr/lib`, `/usr/lib32`,
 *   `/usr/lib64`, `/usr/libx32`, `/usr/local/lib`); or under `/usr/lib/locale/` or
 *   `/usr/share/locale/`; or a file in a `gconv` directory under a system library directory.
 *
 * `/etc/ld.so.preload` is not folded: a preload is worth seeing. Nor is a shared object anywhere
 * else (`/tmp/x.so`, a project's own build).
 */
import type { StoreConnection } from '../store/store-connection.js';
import { typeCode } from '../model/codes.js';
import { execute, raw, sql, type RawSql, type Statement } from '../store/sql.js';

/**
 * A constant of this file as an SQL string literal, not a bound value: DuckDB compiles a constant
 * pattern once per statement, a bound one for every row.
 */
const literal = (text: string): RawSql => raw(`'${text.replaceAll("'", "''")}'`);

const libraryDir = '(usr/(local/)?)?lib(32|64|x32)?/';
/**
 * The paths folded, as one full match: ld.so.cache; a shared object or a gconv file under a system
 * library directory; anything under a locale directory (`(?s:.*)`: a newline too).
 */
const foldedPath = literal(
  `/(etc/ld\\.so\\.cache|${libraryDir}([^/]+/)*([^/]+\\.so(\\.[0-9]+)*|gconv/[^/]+)|usr/(lib|share)/locale/(?s:.*))`,
);
// a `.` or `..` segment, an empty one, or a relative path
const unclean = literal('(^[^/])|(/\\.\\.?(/|$))|(//)');
// the text form: O_RDONLY first, and none of these anywhere
const readOnlyText = literal('O_RDONLY(?s:\\|.*)?');
const writable = literal('(^|\\|)(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_TMPFILE)(\\||$)');

/** Over `flags` (text): read-only, in either form the native format accepts. */
const readOnly = (flags: RawSql): Statement => sql`(CASE WHEN regexp_full_match(${flags}, '[0-9]+')
    THEN (TRY_CAST(${flags} AS UBIGINT) & 3) = 0 AND (TRY_CAST(${flags} AS UBIGINT) & ${raw(String(0o1100))}) = 0
    ELSE regexp_full_match(${flags}, ${readOnlyText}) AND NOT regexp_matches(${flags}, ${writable})
  END)`;

/**
 * True for an events row (its `type`, `attrs` and `judged`) that is a loader or locale open, false
 * otherwise (never null). Only a file_open's attributes are read. Stored attrs are canonical JSON
 * (RFC 8785: no whitespace, nothing escaped that need not be), so two plain substring tests first
 * say what cannot be folded: a path that does not start as a folded one does, and no `unresolved`
 * key anywhere. They can only leave an open shown; the full rule reads the JSON once (the lambda's
 * `a`: flags and path) and runs its regexps on what is left. Cost per event: the commit's message.
 */
export const loaderOrLocaleOpen: Statement = sql`CASE
  WHEN type <> ${raw(String(typeCode('file_open')))} OR judged IS NOT FALSE THEN false
  WHEN NOT (contains(attrs, '"path":"/etc/ld.so.cache"') OR contains(attrs, '"path":"/lib')
    OR contains(attrs, '"path":"/usr/')) THEN false
  ELSE coalesce(list_transform([json_extract_string(attrs, ['$.flags', '$.path'])], a ->
      regexp_full_match(a[2], ${foldedPath}) AND NOT regexp_matches(a[2], ${unclean}) AND ${readOnly(raw('a[1]'))})[1]
    AND CASE WHEN contains(attrs, 'unresolved')
      THEN json_extract(attrs, '$.unresolved') IS NULL AND json_extract(attrs, '$.path_unresolved') IS NULL
      ELSE true END, false)
  END`;

/**
 * Over an events row: true when the views hide it by default. A row the column was never set on
 * (null: written outside the commit) is shown.
 */
export const hiddenLoaderOpen: Statement = sql`loader_locale IS TRUE`;

/** Its negation, written as DuckDB's keyset page reads fastest (`NOT (… IS TRUE)` cost more). */
export const shownByDefault: Statement = sql`coalesce(loader_locale, false) = false`;

/**
 * Sets `loader_locale` on the rows stored before the column existed (sql/017); a scan of the column
 * that finds nothing once they are set.
 */
export function fillLoaderLocaleOpens(connection: StoreConnection): Promise<unknown> {
  return execute(
    connection,
    sql`UPDATE events SET loader_locale = ${loaderOrLocaleOpen} WHERE loader_locale IS NULL`,
  );
}
