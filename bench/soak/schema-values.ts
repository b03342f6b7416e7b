/**
 * Values that a JSON Schema of openapi.json accepts: typical ones, and ones at its edges (the
 * shortest and longest strings, the smallest and largest integers, the fullest arrays). Values the
 * soak knows exist in the store (a run, a tool call, an event) are preferred by name, so valid
 * requests reach real data rather than a 404.
 */
import { resolveSchema, type JsonSchema } from './api-operations.js';
import type { Rng } from './rng.js';

/** Known values by parameter or field name (`run`, `run_id`, `hash`, ...). */
export type KnownValues = (name: string) => readonly unknown[];

/** typical: values a client sends every day; edge: at the bounds the schema allows. */
export type ValueStyle = 'typical' | 'edge';

/** Strings within the bounds, per pattern the document uses; anything else draws from `plain`. */
const patternAlphabets: Record<string, string> = {
  '^[\\x21-\\x7e]*$':
    '!#$%&*+-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~',
  '^[A-Za-z0-9_-]+$': 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
};
const plain = 'abcdefghijklmnopqrstuvwxyz0123456789-_./:';
/** Characters every "no control characters" pattern allows, beyond ASCII: what real names hold. */
const unicodeExtras = [
  'é',
  'ß',
  '日本',
  '😀',
  '\u202e',
  '\u200b',
  '\u2028',
  '\ufeff',
  ' ',
  '"',
  '\\',
  '%',
  '&',
  '#',
];

/** A value `schema` accepts, named `name` (for known values), in the given style. */
export function validValue(
  schema: JsonSchema,
  rng: Rng,
  style: ValueStyle,
  known: KnownValues,
  name = '',
): unknown {
  const node = resolveSchema(schema);
  const pool = known(name).filter((value) => accepts(node, value));
  if (pool.length > 0 && rng.chance(style === 'typical' ? 0.85 : 0.3)) return rng.pick(pool);
  if ('const' in node) return node['const'];
  if (Array.isArray(node['enum'])) return rng.pick((node['enum'] as unknown[]).filter((v) => v !== null));
  const choices = node['oneOf'] ?? node['anyOf'];
  if (Array.isArray(choices) && node['type'] === undefined) {
    const usable = (choices as JsonSchema[]).filter((choice) => resolveSchema(choice)['type'] !== 'null');
    return validValue(rng.pick(usable), rng, style, known, name);
  }
  const types = Array.isArray(node['type']) ? (node['type'] as string[]) : [node['type'] as string];
  const type = rng.pick(
    types.filter((t) => t !== 'null').length > 0 ? types.filter((t) => t !== 'null') : types,
  );
  switch (type) {
    case 'string':
      return stringValue(node, rng, style);
    case 'integer':
    case 'number':
      return numberValue(node, rng, style, type);
    case 'boolean':
      return rng.chance(0.5);
    case 'array':
      return arrayValue(node, rng, style, known, name);
    case 'object':
      return objectValue(node, rng, style, known);
    default:
      return null;
  }
}

function stringValue(node: JsonSchema, rng: Rng, style: ValueStyle): string {
  const pattern = node['pattern'] as string | undefined;
  if (pattern === '^sha256:[0-9a-f]{64}$') return 'sha256:' + hex(rng, 64);
  if (pattern?.startsWith('^bnd_')) return 'bnd_' + fromAlphabet(rng, 'abcdefghijklmnopqrstuvwxyz234567', 20);
  if (node['format'] === 'date-time') return dateTime(rng, style);
  const min = (node['minLength'] as number | undefined) ?? 0;
  const max = Math.min((node['maxLength'] as number | undefined) ?? 64, style === 'edge' ? 4096 : 64);
  const length =
    style === 'edge' ? rng.pick([Math.max(min, 1), max]) : rng.between(Math.max(min, 1), Math.min(max, 24));
  const alphabet = patternAlphabets[pattern ?? ''];
  if (alphabet !== undefined) return fromAlphabet(rng, alphabet, length);
  let text = fromAlphabet(rng, plain, length);
  if (style === 'edge' && length > 4) {
    const extra = rng.pick(unicodeExtras);
    text = extra + text.slice(extra.length * 2);
  }
  return text.slice(0, max).padEnd(min, 'x');
}

function numberValue(node: JsonSchema, rng: Rng, style: ValueStyle, type: string): number {
  const min =
    (node['minimum'] as number | undefined) ??
    ((node['exclusiveMinimum'] as number | undefined) ?? -1) + 1e-9;
  const max = (node['maximum'] as number | undefined) ?? 1_000_000;
  if (type === 'integer') {
    const low = Math.ceil(min);
    if (style === 'edge') return rng.pick([low, max]);
    return rng.between(low, Math.min(max, low + 1000));
  }
  if (style === 'edge') return rng.pick([Math.max(min, 1e-9), max]);
  return min + rng.next() * (max - min);
}

function arrayValue(
  node: JsonSchema,
  rng: Rng,
  style: ValueStyle,
  known: KnownValues,
  name: string,
): unknown[] {
  const items = (node['items'] as JsonSchema | undefined) ?? {};
  const min = (node['minItems'] as number | undefined) ?? 0;
  // the edge is the most items that still fit a small body: a request of 4096 strings of 128 KiB is not one
  const max = Math.min((node['maxItems'] as number | undefined) ?? 8, style === 'edge' ? 200 : 4);
  const count = style === 'edge' ? rng.pick([min, max]) : rng.between(min, Math.max(min, max));
  const values: unknown[] = [];
  const seen = new Set<string>();
  for (let i = 0; values.length < count && i < count * 4; i++) {
    const value = validValue(items, rng, 'typical', known, name);
    if (node['uniqueItems'] === true && seen.has(JSON.stringify(value))) continue;
    seen.add(JSON.stringify(value));
    values.push(value);
  }
  return values.length >= min
    ? values
    : values.concat(Array.from({ length: min - values.length }, (_v, i) => `x${i}`));
}

function objectValue(
  node: JsonSchema,
  rng: Rng,
  style: ValueStyle,
  known: KnownValues,
): Record<string, unknown> {
  const properties = (node['properties'] as Record<string, JsonSchema> | undefined) ?? {};
  const required = new Set((node['required'] as string[] | undefined) ?? []);
  // "at least one of": an anyOf of required properties makes one of them required
  const anyOf = node['anyOf'] as { required?: string[] }[] | undefined;
  if (anyOf !== undefined) for (const field of rng.pick(anyOf).required ?? []) required.add(field);
  const value: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(properties))
    if (required.has(field) || rng.chance(style === 'edge' ? 0.8 : 0.4))
      value[field] = validValue(schema, rng, style, known, field);
  return value;
}

/** True when `value` fits the simple bounds of `node` (type, length, range, enum): enough to use a known value. */
export function accepts(node: JsonSchema, value: unknown): boolean {
  if (Array.isArray(node['enum'])) return (node['enum'] as unknown[]).includes(value);
  if (typeof value === 'string') {
    const type = node['type'];
    if (type !== undefined && type !== 'string' && !(Array.isArray(type) && type.includes('string')))
      return false;
    if (value.length < ((node['minLength'] as number | undefined) ?? 0)) return false;
    if (value.length > ((node['maxLength'] as number | undefined) ?? Infinity)) return false;
    const pattern = node['pattern'] as string | undefined;
    return pattern === undefined || new RegExp(pattern, 'u').test(value);
  }
  if (typeof value === 'number') return node['type'] === 'integer' || node['type'] === 'number';
  return false;
}

export function hex(rng: Rng, length: number): string {
  return fromAlphabet(rng, '0123456789abcdef', length);
}

export function fromAlphabet(rng: Rng, alphabet: string, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[rng.int(alphabet.length)];
  return text;
}

/** An RFC 3339 time around the soak's events; edge ones use offsets, nanoseconds and whole seconds. */
function dateTime(rng: Rng, style: ValueStyle): string {
  const base = Date.UTC(2026, 0, 1) + rng.int(3_600_000);
  const iso = new Date(base).toISOString();
  if (style === 'typical') return iso;
  return rng.pick([
    iso.replace(/\.\d+Z$/, 'Z'),
    iso.replace('Z', '123456Z'),
    iso.replace(/Z$/, '+05:30'),
    '1970-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
  ]);
}
