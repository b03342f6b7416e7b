/**
 * Typed reads of JSON values for the format parsers. Each returns the value, `null` when the field is
 * absent (missing or JSON null), or `wrongType`: a sentinel instead of a thrown error or a result
 * object, so the per-field check on the hot path allocates nothing.
 */

/** Marks a present value of the wrong JSON type. */
export const wrongType: unique symbol = Symbol('wrongType');

/** What a reader returns: the value, null (absent) or wrongType. */
export type FieldRead<T> = T | null | typeof wrongType;

/** A string, or null for absent. */
export function readString(value: unknown): FieldRead<string> {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? null : wrongType;
}

/** A non-empty string, or null for absent or `""` (sensors write `""` for "unknown"). */
export function readIdentifier(value: unknown): FieldRead<string> {
  if (typeof value === 'string') return value.length === 0 ? null : value;
  return value === undefined || value === null ? null : wrongType;
}

/** An integer in 0..2^32-1 (pid, uid, gid), or null for absent. */
export function readUint32(value: unknown): FieldRead<number> {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff ? value : wrongType;
  }
  return value === undefined || value === null ? null : wrongType;
}

/** A non-negative safe integer (byte counts), or null for absent. */
export function readCount(value: unknown): FieldRead<number> {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : wrongType;
  return value === undefined || value === null ? null : wrongType;
}

/**
 * A non-negative safe integer given as a JSON number or a decimal string (protobuf JSON writes
 * 64-bit integers as strings, e.g. Tetragon's `size_arg`), or null for absent.
 */
export function readCountOrDecimal(value: unknown): FieldRead<number> {
  if (typeof value !== 'string') return readCount(value);
  if (value.length === 0 || value.length > 15) return wrongType; // 15 digits stay below 2^53
  let count = 0;
  for (let at = 0; at < value.length; at++) {
    const digit = value.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return wrongType;
    count = count * 10 + digit;
  }
  return count;
}

/** A TCP/UDP port, 0..65535, or null for absent. */
export function readPort(value: unknown): FieldRead<number> {
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value <= 65_535 ? value : wrongType;
  return value === undefined || value === null ? null : wrongType;
}

/** A JSON object (not an array), or null for absent. */
export function readObject(value: unknown): FieldRead<Record<string, unknown>> {
  if (typeof value === 'object') {
    if (value === null) return null;
    return Array.isArray(value) ? wrongType : (value as Record<string, unknown>);
  }
  return value === undefined ? null : wrongType;
}

/** The JSON kind of a value, for messages; never the value itself (it may be huge or sensitive). */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? `the integer ${value}` : 'a fractional number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}

/** A short, printable excerpt of a string from the input, for messages naming an unknown value. */
export function quoteExcerpt(text: string): string {
  return JSON.stringify(text.length > 64 ? text.slice(0, 64) + '…' : text);
}
