/**
 * The event rows file: what a normalize worker writes and the store actor loads with DuckDB's CSV
 * reader (on DuckDB's threads, 2-3x the rate of the Appender for these rows, measured). The column
 * list below is the one contract between the two sides; the commit's INSERT adds what is the same
 * for a whole file (its batch id, so each event's id `<batch>.<idx>`, and when it was received),
 * by column name into the events table (test/model/event-fields.test.ts holds its columns to the
 * fields table).
 *
 * Strings are quoted with U+001E (record separator) instead of `"`: JSON text (attrs) never holds
 * it raw (JSON escapes control characters), so attrs go in as they are, where `"` quoting doubled
 * every quote of every attrs (a copy of each, and DuckDB's slower unescaping path on the way in).
 */
import { csvInt, csvQuote, csvText } from '../store/csv-text.js';
import type { Correlation } from './binding-index.js';
import type { ParsedEvent } from '../model/event.js';
import { eventFields, type EventField } from '../model/event-fields.js';
import { evidenceCode, methodCode, sourceCode, spoolCode, typeCode } from '../model/codes.js';
import { eventBytes, isRisky } from './window-facts.js';

/**
 * Columns of a row file in file order, with their DuckDB types: `idx` (the row's index in its
 * file), the record's facts (event-fields.ts), then what ingest derives and the correlation.
 */
export const eventRowColumns = [
  ['idx', 'BIGINT'],
  ...eventFields.map((field) => [field.key, field.sqlType] as const),
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

const quote = csvQuote;

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
      `,${csvText(binding.run_id)},${csvText(binding.tool_call_id)},${csvText(binding.binding_id)},` +
      `${methodCode(match.method)},${match.confidence},${evidenceCode(match.evidenceLevel)},${spoolCode('settled')}\n`;
    correlationCache.set(match, fields);
  }
  return fields;
}

/** One fact of an event as a row's field (with no separator). */
function factField(field: EventField, event: ParsedEvent, attrsJson: string): string {
  switch (field.kind) {
    case 'type':
      return String(typeCode(event.type));
    case 'source':
      return String(sourceCode(event.source));
    case 'instant':
      return String(event.timeNs);
    case 'attrs':
      return `${quote}${attrsJson}${quote}`;
    case 'uint32':
      return csvInt(event[field.property] as number | null);
    default:
      return csvText(event[field.property] as string | null);
  }
}

/**
 * One CSV line (with its newline) for an event: its facts as parsed, `attrsJson` (canonical JSON of
 * its attrs), the hex digest of its content hash, whether the policy judged it, its correlation
 * (undefined: spooled), and `pid` as stored (tests inject an unstorable one). The rows file without
 * the addon (native/hash/rows.cc writes the same bytes).
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
  let row = String(idx);
  for (const field of eventFields)
    row += ',' + (field.key === 'pid' ? csvInt(pid) : factField(field, event, attrsJson));
  return (
    `${row},${hashHex},${isRisky(event.type, event.attrs)},${eventBytes(event.attrs)},${judged}` +
    correlationFields(match)
  );
}
