/**
 * The event rows file: what a normalize worker writes and the store actor loads with DuckDB's CSV
 * reader (on DuckDB's threads, 2-3x the rate of the Appender for these rows, measured). The column
 * list below is the one contract between the two sides; the commit's INSERT adds what is the same
 * for a whole file (its batch id, so each event's id `<batch>.<idx>`, and when it was received)
 * and must match sql/002_telemetry.sql: events.
 *
 * Strings are quoted with U+001E (record separator) instead of `"`: JSON text (attrs) never holds
 * it raw (JSON escapes control characters), so attrs go in as they are, where `"` quoting doubled
 * every quote of every attrs (a copy of each, and DuckDB's slower unescaping path on the way in).
 */
import { VARCHAR } from '@duckdb/node-api';
import { list, raw, sql, type Statement } from '../store/sql.js';
import type { Correlation } from './binding-index.js';
import type { ParsedEvent } from './event.js';
import { evidenceCode, methodCode, sourceCode, spoolCode, typeCode } from './codes.js';
import { eventBytes, isRisky } from './window-facts.js';

/** Columns of a row file in file order, with their DuckDB types; `idx` is the row's index in its file. */
export const eventRowColumns = [
  ['idx', 'BIGINT'],
  ['type', 'UTINYINT'],
  ['source', 'UTINYINT'],
  ['time', 'VARCHAR'],
  ['time_ns', 'BIGINT'],
  ['pid', 'UINTEGER'],
  ['tgid', 'UINTEGER'],
  ['ppid', 'UINTEGER'],
  ['uid', 'BIGINT'],
  ['comm', 'VARCHAR'],
  ['cgroup_id', 'VARCHAR'],
  ['container_id', 'VARCHAR'],
  ['attrs', 'VARCHAR'],
  ['hash', 'VARCHAR'], // the 64 hex digits; the INSERT prefixes sha256:
  ['risky', 'BOOLEAN'],
  ['bytes', 'BIGINT'],
  ['judged', 'BOOLEAN'],
  // the correlation, one cached fragment per binding and tier (correlationFields)
  ['run_id', 'VARCHAR'],
  ['tool_call_id', 'VARCHAR'],
  ['binding_id', 'VARCHAR'],
  ['corr_method', 'UTINYINT'],
  ['corr_confidence', 'DOUBLE'],
  ['evidence_level', 'UTINYINT'],
  ['spool_state', 'UTINYINT'],
] as const;

const quote = '\u001e';

const readOptions =
  `columns = {${eventRowColumns.map(([name, type]) => `'${name}': '${type}'`).join(', ')}}, ` +
  `header = false, quote = '${quote}', escape = '${quote}', auto_detect = false, allow_quoted_nulls = false, ` +
  `filename = true`;

/**
 * The read_csv call for row files, as a table source. Strings are always quoted and nulls are
 * empty and unquoted, so with allow_quoted_nulls=false an empty string and NULL stay distinct.
 */
export function eventRowsSource(files: readonly string[]): Statement {
  return sql`read_csv(${list(files, VARCHAR)}, ${raw(readOptions)})`;
}

/** Flags of a row for the native writer (native/hash/rows.cc: kRisky, kJudged, kUnstorablePid). */
export const rowFlags = { risky: 1, judged: 2, unstorablePid: 4 } as const;

/** The row of an event the spool holds: no run yet. */
const pendingFields = `,,,,${methodCode('none')},,${evidenceCode('uncorrelated')},${spoolCode('pending')}\n`;
const correlationCache = new WeakMap<Correlation, string>();

/** The correlation's columns of a row (with the newline), built once per binding and tier. */
export function correlationFields(match: Correlation | undefined): string {
  if (match === undefined) return pendingFields;
  let fields = correlationCache.get(match);
  if (fields === undefined) {
    const { binding } = match;
    fields =
      `,${text(binding.run_id)},${text(binding.tool_call_id)},${text(binding.binding_id)},` +
      `${methodCode(match.method)},${match.confidence},${evidenceCode(match.evidenceLevel)},${spoolCode('settled')}\n`;
    correlationCache.set(match, fields);
  }
  return fields;
}

/**
 * One CSV line (with its newline) for an event: its facts as parsed, `attrsJson` (canonical JSON of
 * its attrs), the hex digest of its content hash, whether the policy judged it, its correlation
 * (undefined: spooled), and `pid` as stored (tests inject an unstorable one).
 */
export function encodeEventRow(
  idx: number,
  event: ParsedEvent,
  attrsJson: string,
  hashHex: string,
  judged: boolean,
  match: Correlation | undefined,
  pid: number | null = event.pid,
): string {
  return (
    `${idx},${typeCode(event.type)},${sourceCode(event.source)},${text(event.time)},${event.timeNs},` +
    `${int(pid)},${int(event.tgid)},${int(event.ppid)},${int(event.uid)},${text(event.comm)},` +
    `${text(event.cgroupId)},${text(event.containerId)},${quote}${attrsJson}${quote},${hashHex},` +
    `${isRisky(event.type, event.attrs)},${eventBytes(event.attrs)},${judged}${correlationFields(match)}`
  );
}

/**
 * A quoted CSV string that DuckDB reads back byte for byte. Its reader drops one U+FEFF (a BOM) at
 * the start of any value, so a value starting with one gets a second in front to be dropped. A test
 * (test/telemetry/event-row.test.ts) holds hostile strings to this through the real reader.
 */
function text(value: string | null): string {
  if (value === null) return '';
  const quoted = value.includes(quote)
    ? `${quote}${value.replaceAll(quote, quote + quote)}${quote}`
    : `${quote}${value}${quote}`;
  return value.charCodeAt(0) === 0xfeff ? `${quote}\ufeff${quoted.slice(1)}` : quoted;
}

function int(value: number | null): string {
  return value === null ? '' : String(value);
}
