/**
 * What the session view folds: the opens every exec makes before its command does anything, the
 * dynamic loader's (ld.so.cache, the shared objects it maps) and the C library's locale and gconv
 * files. One SQL predicate over an events row, so the fold is counted and listed set-wise in the
 * store; docs/cli.md ("Loader and locale opens") states the same rule for users.
 *
 * An event is folded only when all of these hold:
 * - it is a `file_open` (never a file_write, a secret_path or any other type);
 * - its `flags` say read-only: the text form's access mode is O_RDONLY and it names none of O_WRONLY,
 *   O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE; or the integer form has access mode 0 and neither O_CREAT
 *   nor O_TRUNC. An open without flags is not known to be read-only, so it is shown;
 * - the policy did not judge it (`judged`: anything but a plain allow is never hidden);
 * - its path was resolved (no `unresolved`), is absolute and holds no `.`, `..` or empty segment;
 * - the path is `/etc/ld.so.cache`; or a shared object (`NAME.so` or `NAME.so.1.2...`) under a
 *   system library directory (`/lib`, `/lib32`, `/lib64`, `/libx32`, `/usr/lib`, `/usr/lib32`,
 *   `/usr/lib64`, `/usr/libx32`, `/usr/local/lib`); or under `/usr/lib/locale/` or
 *   `/usr/share/locale/`; or a file in a `gconv` directory under a system library directory.
 *
 * `/etc/ld.so.preload` is not folded: a preload is worth seeing. Nor is a shared object anywhere
 * else (`/tmp/x.so`, a project's own build).
 */
import { typeCode } from '../../model/codes.js';
import { raw, sql, type Statement } from '../../store/sql.js';

const libraryDir = '/(usr/(local/)?)?lib(32|64|x32)?/';
const sharedObject = `^${libraryDir}([^/]+/)*[^/]+\\.so(\\.[0-9]+)*$`;
const gconvFile = `^${libraryDir}([^/]+/)*gconv/[^/]+$`;
const localeFile = '^/usr/(lib|share)/locale/';
// a `.` or `..` segment, an empty one, or a relative path
const unclean = '(^[^/])|(/\\.\\.?(/|$))|(//)';

const flags = sql`json_extract_string(attrs, '$.flags')`;
const path = sql`json_extract_string(attrs, '$.path')`;

/** Read-only by the open's flags, in either form the native format accepts. */
const readOnly = sql`(CASE WHEN regexp_full_match(${flags}, '[0-9]+')
    THEN (TRY_CAST(${flags} AS UBIGINT) & 3) = 0 AND (TRY_CAST(${flags} AS UBIGINT) & ${raw(String(0o1100))}) = 0
    ELSE string_split(${flags}, '|')[1] = 'O_RDONLY'
      AND NOT list_has_any(string_split(${flags}, '|'), ['O_WRONLY', 'O_RDWR', 'O_CREAT', 'O_TRUNC', 'O_TMPFILE'])
  END)`;

/**
 * True for an events row the session view folds (a loader or locale open), false otherwise (never
 * null). Only a file_open's attributes are read: the JSON and regexps are most of the view's cost.
 */
export const loaderOrLocaleOpen: Statement = sql`CASE WHEN type <> ${raw(String(typeCode('file_open')))} THEN false
  ELSE coalesce(NOT judged
  AND json_extract(attrs, '$.unresolved') IS NULL
  AND ${readOnly}
  AND NOT regexp_matches(${path}, ${unclean})
  AND (${path} = '/etc/ld.so.cache'
    OR regexp_full_match(${path}, ${sharedObject})
    OR regexp_matches(${path}, ${localeFile})
    OR regexp_full_match(${path}, ${gconvFile})), false) END`;
