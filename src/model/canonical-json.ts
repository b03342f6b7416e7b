/**
 * Canonical JSON (RFC 8785, JCS) for the values provd hashes: object keys sorted by UTF-16 code
 * units, no whitespace, numbers and strings as ECMAScript serializes them (which JCS adopts).
 */

/** The JCS serialization of a JSON value; throws on values JSON cannot carry (NaN, bigint, undefined in arrays). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no form for ' + String(value));
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i] === undefined ? null : value[i]);
    }
    return out + ']';
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // default sort compares UTF-16 code units, as JCS requires
    const keys = Object.keys(record).sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += JSON.stringify(key) + ':' + canonicalJson(item);
    }
    return out + '}';
  }
  throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
}
