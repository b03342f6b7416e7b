/**
 * An event's hash recomputed from its stored columns, for verification: the same canonical content
 * as at ingest (event-hash.ts), with type and source decoded from their stored codes and attrs as
 * the canonical JSON string it was stored as. Handed to the provenance module by the store worker.
 */
import { eventSources, eventTypes, type ParsedEvent } from '../model/event.js';
import { contentFields, type EventField, type EventFieldKey } from '../model/event-fields.js';
import { sourceName, typeName } from '../model/codes.js';
import { hashEvent } from './event-hash.js';
import type { EventJsonRow } from './event-json.js';

/** The columns `rehashStoredEvent` reads, in SELECT form: the facts the content hash covers. */
export const storedEventColumns = contentFields.map((field) => field.key).join(', ');

/** An events row as read with `storedEventColumns`. */
export type StoredEventRow = Pick<EventJsonRow, Exclude<EventFieldKey, 'time_ns'>>;

/** A stored fact as the parser gave it: a code's name, an id as a number, a text as it is. */
function factOf(field: EventField, value: unknown): unknown {
  if (field.kind === 'type') return typeName(value as number);
  if (field.kind === 'source') return sourceName(value as number);
  return typeof value === 'bigint' ? Number(value) : value;
}

/** `sha256:<hex>` of the row's facts, as ingest hashed them. */
export function rehashStoredEvent(row: StoredEventRow): string {
  const event: Record<string, unknown> = { timeNs: 0n, attrs: {} }; // neither read: attrs go in as stored
  for (const field of contentFields)
    if (field.kind !== 'attrs') event[field.property] = factOf(field, row[field.key as keyof StoredEventRow]);
  return hashEvent(event as unknown as ParsedEvent, row.attrs);
}

/** Control characters DuckDB escapes with upper-case hex digits, where JSON.stringify writes lower case. */
const upperEscapes = ['0B', '0E', '0F', '1A', '1B', '1C', '1D', '1E', '1F'];

/**
 * A nullable text column as JSON.stringify writes it: DuckDB's to_json escapes the same characters
 * the same way, but spells those \u00XX escapes in upper case, so a text holding a control
 * character has them lower-cased (a literal backslash-u sequence beside one may still come out
 * different; that row is rehashed in JavaScript).
 */
const jsonText = (column: string): string => {
  const json = `to_json(${column})::VARCHAR`;
  const lowered = upperEscapes.reduce(
    (expression, hex) => `replace(${expression}, '\\u00${hex}', '\\u00${hex.toLowerCase()}')`,
    json,
  );
  // only a text with a control character has a \u00 escape (or a literal backslash-u, which the JS rehash settles)
  return `coalesce(CASE WHEN contains(${json}, '\\u00') THEN ${lowered} ELSE ${json} END, 'null')`;
};
/** A nullable integer column as JavaScript prints it. */
const jsonInteger = (column: string): string => `coalesce(${column}::VARCHAR, 'null')`;
/** A code column as its name (names are plain ASCII words, quoted as JSON). */
const codeName = (column: string, names: readonly string[]): string =>
  `'"' || [${names.map((name) => `'${name}'`).join(', ')}][${column} + 1] || '"'`;

/** A fact's JSON text as arguments of a DuckDB concat over its column. */
function factJsonSql(field: EventField): string {
  switch (field.kind) {
    case 'type':
      return codeName(field.key, eventTypes);
    case 'source':
      return codeName(field.key, eventSources);
    case 'time':
      // checked as RFC 3339 at ingest: nothing in it needs escaping (an edited one is rehashed in JS)
      return `'"', ${field.key}, '"'`;
    case 'uint32':
      return jsonInteger(field.key);
    default:
      return jsonText(field.key);
  }
}

/** A fact's `,"key":value` as an argument of the content's concat: nothing while null if `when_set`. */
function factMemberSql(field: EventField): string {
  const member = `',"${field.key}":', ${factJsonSql(field)}`;
  return field.content === 'when_set'
    ? `CASE WHEN ${field.key} IS NULL THEN '' ELSE concat(${member}) END`
    : member;
}

/**
 * The same canonical content as a DuckDB expression over an events row, so DuckDB can rehash
 * every row of a run on its own threads (one concat: a chain of `||` makes a string per step); a
 * row it disagrees on is checked again with `rehashStoredEvent`, so an escaping difference can
 * never pass for tampering. Built from the fields table and code constants only.
 */
export const storedEventContentSql = `concat('{"attrs":', attrs, ${contentFields
  .filter((field) => field.kind !== 'attrs')
  .map(factMemberSql)
  .join(', ')}, '}')`;
