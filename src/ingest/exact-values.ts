/**
 * Values JSON can carry that no store keeps exactly; a line holding one is refused, so that every
 * stored event reads back as it was sent and recomputes to its hash.
 *
 * - A lone UTF-16 surrogate (`"\udc00"`): no Unicode text holds it, UTF-8 cannot encode it, so the
 *   rows file would store U+FFFD instead. RFC 8785 (via I-JSON, RFC 7493) refuses such strings too.
 * - An integer beyond ±(2^53 - 1) in an event's attributes: JSON.parse rounds it to a double, so the
 *   stored number would differ from the one sent. I-JSON asks for such integers as strings.
 * - A number beyond what a double holds (`1e999999`): JSON.parse makes it Infinity, which JSON has
 *   no form for, so no content or hash could be written of the event.
 * - Nesting deeper than maxNesting: the walks over stored values would overflow the stack.
 */

import { isWellFormedValue } from '../shared/well-formed.js';

// an escape of a surrogate code unit (U+D800..U+DFFF): the only way a decoded line can hold a lone one
const surrogateEscape = /\\u[dD][89a-fA-F]/;
/**
 * True when `text` holds a run of 16 or more decimal digits: 2^53 has 16, so a line without one holds
 * no integer that large. A plain scan: the regex /\d{16}/ cost 5x more on long lines with many digits.
 */
function hasLongDigitRun(text: string): boolean {
  let run = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code >= 48 && code <= 57) {
      if (++run === 16) return true;
    } else {
      run = 0;
    }
  }
  return false;
}

/**
 * True when the line parsed from `text` holds a lone surrogate anywhere. Lines without a surrogate
 * escape (nearly all) are decided by one scan of the text, never by walking the value.
 */
export function hasLoneSurrogate(text: string, value: unknown): boolean {
  // `includes` first: a line without `\u` (nearly all) is passed 4x faster than by the RegExp alone
  return text.includes('\\u') && surrogateEscape.test(text) && !isWellFormedValue(value);
}

/**
 * Deepest nesting of arrays and objects kept in an event's attributes (the attributes object is
 * level 1). Every walk over stored values (hashing, canonical JSON, verify) recurses once per level;
 * a line nested 50,000 deep overflowed the stack and failed its whole request. Real producers nest a
 * few levels; 128 is serde_json's default limit.
 */
export const maxNesting = 128;

/** What makes a value unstorable, worst last: an integer past ±(2^53 - 1) only if the line wrote it in digits. */
const Unstorable = { none: 0, integer: 1, beyondDouble: 2, tooDeep: 3 } as const;
type Unstorable = (typeof Unstorable)[keyof typeof Unstorable];

/** The worst that `value`, at nesting `level`, holds (unstorableValueIn, without paths). */
function unstorableKind(value: unknown, level: number): Unstorable {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return Unstorable.beyondDouble;
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? Unstorable.integer : Unstorable.none;
  }
  if (typeof value !== 'object' || value === null) return Unstorable.none;
  if (level > maxNesting) return Unstorable.tooDeep;
  let worst: Unstorable = Unstorable.none;
  // a line holding a worse kind than an integer is refused whatever else it holds
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && worst < Unstorable.beyondDouble; i++) {
      const kind = unstorableKind(value[i], level + 1);
      if (kind > worst) worst = kind;
    }
    return worst;
  }
  for (const key in value) {
    const kind = unstorableKind((value as Record<string, unknown>)[key], level + 1);
    if (kind > worst) worst = kind;
    if (worst >= Unstorable.beyondDouble) break;
  }
  return worst;
}

/** The path of the first value in `value` (at nesting `level`) of unstorable `kind`, or undefined. */
function unstorablePath(value: unknown, path: string, kind: Unstorable, level: number): string | undefined {
  if (typeof value === 'number') return unstorableKind(value, level) === kind ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (level > maxNesting) return kind === Unstorable.tooDeep ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`, kind, level + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    const found = unstorablePath(item, path === '' ? key : `${path}.${key}`, kind, level + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Why an event's attributes (as a parser built them from the line `text`) cannot be stored as sent,
 * naming the first value at fault, or undefined: nesting deeper than maxNesting, a number beyond
 * what a double holds, or an integer beyond ±(2^53 - 1) while the line holds a run of 16 digits (so
 * the parse may have rounded it). Nearly every line is decided by a walk of its few attrs, never by
 * a scan of the text.
 */
export function unstorableValueIn(
  text: string,
  attrs: Readonly<Record<string, unknown>>,
): string | undefined {
  // the values first: a walk of a few attrs costs less than a scan of the whole line
  const found = unstorableKind(attrs, 1);
  if (found === Unstorable.none || (found === Unstorable.integer && !hasLongDigitRun(text))) return undefined;
  const path = unstorablePath(attrs, '', found, 1)?.slice(0, 80);
  switch (found) {
    case Unstorable.tooDeep:
      return `${path}: nested deeper than ${maxNesting} levels; no event keeps it`;
    case Unstorable.beyondDouble:
      return `${path}: a number beyond what a double holds cannot be kept; send it as a string`;
    default:
      return `${path}: an integer beyond 2^53 cannot be kept exactly; send it as a string`;
  }
}
