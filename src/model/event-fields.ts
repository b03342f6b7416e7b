/**
 * The event record's facts, declared once: for each its key (in the record, the canonical content,
 * answers, and as the events column), the ParsedEvent property that holds it, its DuckDB type, how
 * it is written, and whether the content hash covers it. The canonical content (event-hash.ts), its
 * SQL rehash (stored-event-hash.ts), the rows file (event-row.ts), answers (event-json.ts), the
 * native writers' header (native/hash/event-fields.h) and the events table's check
 * (test/model/event-fields.test.ts) all read this table. docs/development.md "Adding an event
 * field" says what else a new field takes: a migration and the parsers that set it.
 */
import type { ParsedEvent } from './event.js';

/**
 * How a fact is written: a stored code of its name (`type`, `source`), the capture time as
 * received, the capture instant in Unix ns (stored, not hashed: it is read from `time`), an id in
 * 0..2^32-1, a text, or the attrs object (canonical JSON).
 */
export type EventFieldKind = 'type' | 'source' | 'time' | 'instant' | 'uint32' | 'text' | 'attrs';

/**
 * Whether the content hash covers a fact: `always` (null written as null), `when_set` (left out
 * while null: a field added after events were hashed, so that every stored event keeps its hash),
 * or `never`.
 */
export type EventFieldContent = 'always' | 'when_set' | 'never';

/** One fact of the event record. */
export interface EventField {
  readonly key: string;
  readonly property: keyof ParsedEvent;
  readonly sqlType: 'UTINYINT' | 'UINTEGER' | 'BIGINT' | 'VARCHAR';
  readonly kind: EventFieldKind;
  readonly content: EventFieldContent;
  /** The native format may send it as a non-negative JSON integer, kept as its decimal text. */
  readonly textFromInteger?: true;
}

/**
 * The facts in record order: the order of the rows file's columns (after `idx`) and of answers.
 * Append a new fact after the process identity it belongs to, with `content: 'when_set'`.
 */
export const eventFields = [
  { key: 'type', property: 'type', sqlType: 'UTINYINT', kind: 'type', content: 'always' },
  { key: 'source', property: 'source', sqlType: 'UTINYINT', kind: 'source', content: 'always' },
  { key: 'time', property: 'time', sqlType: 'VARCHAR', kind: 'time', content: 'always' },
  { key: 'time_ns', property: 'timeNs', sqlType: 'BIGINT', kind: 'instant', content: 'never' },
  { key: 'pid', property: 'pid', sqlType: 'UINTEGER', kind: 'uint32', content: 'always' },
  { key: 'tgid', property: 'tgid', sqlType: 'UINTEGER', kind: 'uint32', content: 'always' },
  { key: 'ppid', property: 'ppid', sqlType: 'UINTEGER', kind: 'uint32', content: 'always' },
  { key: 'uid', property: 'uid', sqlType: 'BIGINT', kind: 'uint32', content: 'always' },
  // the audit login uid (Tetragon's auid, Falco's user.loginuid): who logged in, kept across sudo
  { key: 'login_uid', property: 'loginUid', sqlType: 'UINTEGER', kind: 'uint32', content: 'when_set' },
  { key: 'comm', property: 'comm', sqlType: 'VARCHAR', kind: 'text', content: 'always' },
  {
    key: 'cgroup_id',
    property: 'cgroupId',
    sqlType: 'VARCHAR',
    kind: 'text',
    content: 'always',
    textFromInteger: true,
  },
  { key: 'container_id', property: 'containerId', sqlType: 'VARCHAR', kind: 'text', content: 'always' },
  { key: 'attrs', property: 'attrs', sqlType: 'VARCHAR', kind: 'attrs', content: 'always' },
] as const satisfies readonly EventField[];

/** A fact's key. */
export type EventFieldKey = (typeof eventFields)[number]['key'];

/** The process identity facts: the ids and texts a producer sends about the process. */
export const identityFields: readonly EventField[] = eventFields.filter(
  (field: EventField) => field.kind === 'uint32' || field.kind === 'text',
);

/**
 * The facts the canonical content holds, in its key order (RFC 8785: by UTF-16 code units; the
 * keys are ASCII). `attrs` comes first; the key after it must always be written, as it marks where
 * the attrs end (event-hash.ts: attrsInContent).
 */
export const contentFields: readonly EventField[] = eventFields
  .filter((field: EventField) => field.content !== 'never')
  .sort((a, b) => (a.key < b.key ? -1 : 1));

if (contentFields[0]?.key !== 'attrs' || contentFields[1]?.content !== 'always') {
  throw new Error('event-fields.ts: the canonical content must start with attrs and a fact always written');
}

/** Where the attrs end in canonical content: the first key after them (see attrsInContent). */
export const afterAttrsMarker = `,"${contentFields[1].key}":`;
