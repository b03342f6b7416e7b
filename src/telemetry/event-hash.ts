/**
 * The content hash of an event: sha256 over the canonical JSON (RFC 8785) of its system-side facts.
 * Correlation is left out on purpose, so re-attributing a spooled event never changes its hash.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../model/canonical-json.js';
import type { ParsedEvent } from '../model/event.js';
import { afterAttrsMarker, contentFields } from '../model/event-fields.js';

/** A fact's JSON text: the JSON.stringify of its value (ids and texts are JSON-safe as they are). */
const factJson = (value: unknown): string => (value === null ? 'null' : JSON.stringify(value));

/**
 * The canonical JSON of an event's facts, written in its key order (event-fields.ts: contentFields)
 * to spare a sort per event; `attrsJson` must already be canonical. A test holds this equal to
 * canonicalJson of the same object.
 */
export function canonicalEventContent(event: ParsedEvent, attrsJson: string): string {
  let content = `{"attrs":${attrsJson}`;
  for (const field of contentFields) {
    if (field.kind === 'attrs') continue;
    const value = event[field.property] as unknown;
    if (value === null && field.content === 'when_set') continue;
    content += `,"${field.key}":${factJson(value)}`;
  }
  return content + '}';
}

/** `sha256:<hex>` of the event's canonical content. */
export function hashEvent(event: ParsedEvent, attrsJson: string): string {
  // one-shot crypto.hash: a third of createHash's cost for inputs this small
  return 'sha256:' + hash('sha256', canonicalEventContent(event, attrsJson), 'hex');
}

/** What canonicalOrder answers for a value JSON.stringify would not write as canonical JSON. */
const notOrderable = Symbol('not orderable');

/** A key V8 enumerates before every other key, in numeric order, whatever the insertion order. */
const indexLike = /^[0-9]+$/;

/**
 * `value` with every object's keys in JCS order (UTF-16 code units), so that JSON.stringify writes
 * its canonical JSON: the value itself when its keys are in that order already (the common case),
 * else a copy. notOrderable when JSON.stringify would not write canonical JSON of it whatever the
 * order: a non-finite number, a value JSON has no form for, an object that is not plain, or keys
 * to reorder among which V8 would keep integer-like ones first.
 */
function canonicalOrder(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined': // skipped in objects, null in arrays: as canonicalJson writes them
      return value;
    case 'number':
      return Number.isFinite(value) ? value : notOrderable;
    case 'object':
      break;
    default:
      return notOrderable;
  }
  if (value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const ordered = canonicalOrder(item);
      if (ordered === notOrderable) return notOrderable;
      if (ordered !== item) (copy ??= value.slice())[i] = ordered;
    }
    return copy ?? value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return notOrderable;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1]! < keys[i]!)) sorted = false;
    if (keys[i] === '__proto__') return notOrderable; // a copy could not hold it as a plain key
  }
  if (!sorted && keys.some((key) => indexLike.test(key))) return notOrderable;
  let copy: Record<string, unknown> | undefined;
  if (!sorted) {
    keys.sort();
    copy = {};
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    const ordered = canonicalOrder(item);
    if (ordered === notOrderable) return notOrderable;
    if (copy === undefined && ordered !== item) {
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j]!] = record[keys[j]!];
    }
    if (copy !== undefined) copy[key] = ordered;
  }
  return copy ?? record;
}

/**
 * The facts of an event as one object literal in canonical key order, a fact left out while null
 * marked undefined (JSON.stringify skips it): compiled once from the fields table, so that V8
 * builds one literal shape per event (a loop over the table cost a third more, measured).
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- code from the constant fields table, never from input
const contentObject = new Function(
  'event',
  'attrs',
  `return {${contentFields
    .map((field) => {
      if (field.kind === 'attrs') return 'attrs';
      const value = `event.${field.property}`;
      return field.content === 'when_set'
        ? `${field.key}: ${value} === null ? undefined : ${value}`
        : `${field.key}: ${value}`;
    })
    .join(', ')}};`,
) as (event: ParsedEvent, attrs: unknown) => object;

/**
 * An event's canonical content (canonicalEventContent), made by one JSON.stringify of the facts
 * with attrs in JCS order: a third of what the hand-written text cost. Values JSON.stringify would
 * not write canonically (canonicalOrder) take canonicalJson's way.
 */
export function canonicalContent(event: ParsedEvent): string {
  const attrs = canonicalOrder(event.attrs);
  if (attrs === notOrderable) return canonicalEventContent(event, canonicalJson(event.attrs));
  return JSON.stringify(contentObject(event, attrs));
}

/**
 * The canonical JSON of the attrs inside an event's canonical content. Inside the attrs every `"` of
 * a string is escaped, and the fact after them is always written (afterAttrsMarker), so its key's
 * last occurrence ends them.
 */
export function attrsInContent(content: string): string {
  return content.slice(9, content.lastIndexOf(afterAttrsMarker));
}
