/**
 * An event's hash recomputed from its stored columns, for verification: the same canonical content
 * as at ingest (event-hash.ts), with type and source decoded from their stored codes and attrs as
 * the canonical JSON string it was stored as. Handed to the provenance module by the store worker.
 */
import { eventSources, eventTypes } from '../model/event.js';
import { sourceName, typeName } from '../model/codes.js';
import { hashEvent } from './event-hash.js';
import type { EventJsonRow } from './event-json.js';

/** The columns `rehashStoredEvent` reads, in SELECT form. */
export const storedEventColumns =
  'type, source, time, pid, tgid, ppid, uid, comm, cgroup_id, container_id, attrs';

/** An events row as read with `storedEventColumns`. */
export type StoredEventRow = Pick<
  EventJsonRow,
  | 'type'
  | 'source'
  | 'time'
  | 'pid'
  | 'tgid'
  | 'ppid'
  | 'uid'
  | 'comm'
  | 'cgroup_id'
  | 'container_id'
  | 'attrs'
>;

/** `sha256:<hex>` of the row's facts, as ingest hashed them. */
export function rehashStoredEvent(row: StoredEventRow): string {
  return hashEvent(
    {
      type: typeName(row.type),
      source: sourceName(row.source),
      time: row.time,
      timeNs: 0n, // not hashed
      pid: row.pid,
      tgid: row.tgid,
      ppid: row.ppid,
      uid: row.uid === null ? null : Number(row.uid),
      comm: row.comm,
      cgroupId: row.cgroup_id,
      containerId: row.container_id,
      attrs: {}, // not read: attrs go in as their stored canonical JSON
    },
    row.attrs,
  );
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

/**
 * The same canonical content as a DuckDB expression over an events row, so DuckDB can rehash
 * every row of a run on its own threads (one concat: a chain of `||` makes a string per step); a row it disagrees on is checked again with
 * `rehashStoredEvent`, so an escaping difference can never pass for tampering. Built from code
 * constants only.
 */
export const storedEventContentSql = `concat(${[
  `'{"attrs":'`,
  'attrs',
  `',"cgroup_id":'`,
  jsonText('cgroup_id'),
  `',"comm":'`,
  jsonText('comm'),
  `',"container_id":'`,
  jsonText('container_id'),
  `',"pid":'`,
  jsonInteger('pid'),
  `',"ppid":'`,
  jsonInteger('ppid'),
  `',"source":'`,
  codeName('source', eventSources),
  `',"tgid":'`,
  jsonInteger('tgid'),
  // time was checked as RFC 3339 at ingest: nothing in it needs escaping (an edited one is rehashed in JS)
  `',"time":"'`,
  'time',
  `'","type":'`,
  codeName('type', eventTypes),
  `',"uid":'`,
  jsonInteger('uid'),
  `'}'`,
].join(', ')})`;
