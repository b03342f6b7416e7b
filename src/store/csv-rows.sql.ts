/**
 * Rows files for DuckDB's CSV reader, as the commit loads them (faster than binding values one by
 * one, on DuckDB's own threads). Strings are quoted with U+001E (record separator) instead of `"`:
 * JSON text never holds it raw (JSON escapes control characters), so JSON values go in as they are.
 * Strings are always quoted and nulls are empty and unquoted, so with allow_quoted_nulls=false an
 * empty string and NULL stay distinct. native/hash/rows.cc writes the same quoting (kQuote).
 */
import { VARCHAR } from './duckdb-api.js';
import { maxCsvRowBytes } from './csv-row-limit.js';
import { csvQuote } from './csv-text.js';
import { list, raw, sql, type Statement } from './sql.js';

/**
 * Every option of DuckDB's CSV reader (1.5) that it would otherwise detect or default, stated: left
 * to it, the reader still sniffs `new_line` (and the delimiter, comment, skip, formats) with
 * auto_detect off, from the file's first bytes, and a file whose first row holds a `\r` inside a
 * quoted value reads as `\r`-separated and fails the whole commit; it also reads `key=value` folders
 * of the path as Hive columns and a `.gz` name as gzip. test/store/csv-rows.test.ts reads a broken
 * file and checks that DuckDB's error lists no option as "Auto-Detected".
 */
const csvOptions = [
  ['auto_detect', 'false'],
  ['header', 'false'],
  ['skip', '0'],
  ['delim', "','"],
  ['new_line', "'\\n'"], // only \n ends a row: a \r or \r\n in a value is data
  ['quote', `'${csvQuote}'`],
  ['escape', `'${csvQuote}'`],
  ['comment', "''"],
  ['nullstr', "''"], // an empty unquoted field is NULL; a quoted empty one is ''
  ['allow_quoted_nulls', 'false'],
  ['encoding', "'utf-8'"],
  ['compression', "'none'"],
  ['decimal_separator', "'.'"],
  ['thousands', "''"],
  ['dateformat', "'%Y-%m-%d'"], // no DATE or TIMESTAMP column: stated so nothing is guessed
  ['timestampformat', "'%Y-%m-%dT%H:%M:%S.%fZ'"],
  ['strict_mode', 'true'],
  ['null_padding', 'false'],
  ['ignore_errors', 'false'], // a row the reader cannot read fails the load: never dropped silently
  ['store_rejects', 'false'],
  ['all_varchar', 'false'],
  ['normalize_names', 'false'],
  ['union_by_name', 'false'],
  ['hive_partitioning', 'false'], // a data dir under `x=y/` must not add (or override) a column x
  ['files_to_sniff', '1'],
  ['sample_size', '2048'],
  ['parallel', 'true'],
  ['max_line_size', String(maxCsvRowBytes)],
  ['filename', 'true'],
] as const;

const csvOptionsText = csvOptions.map(([name, value]) => `${name} = ${value}`).join(', ');

/** A read_csv call over `files` with these columns (name, DuckDB type), as a table source. */
export function csvSource(
  files: readonly string[],
  columns: readonly (readonly [string, string])[],
): Statement {
  const options =
    `columns = {${columns.map(([name, type]) => `'${name}': '${type}'`).join(', ')}}, ` + csvOptionsText;
  return sql`read_csv(${list(files, VARCHAR)}, ${raw(options)})`;
}
