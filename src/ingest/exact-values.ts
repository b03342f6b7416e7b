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
 */

import { isWellFormedText } from '../shared/well-formed.js';

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

/** True when every string (keys included) of a parsed JSON value is well-formed UTF-16. */
function isWellFormedValue(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormedText(value);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(isWellFormedValue);
  for (const key in value) {
    if (!isWellFormedText(key)) return false;
    if (!isWellFormedValue((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * True when the line parsed from `text` holds a lone surrogate anywhere. Lines without a surrogate
 * escape (nearly all) are decided by one scan of the text, never by walking the value.
 */
export function hasLoneSurrogate(text: string, value: unknown): boolean {
  // `includes` first: a line without `\u` (nearly all) is passed 4x faster than by the RegExp alone
  return text.includes('\\u') && surrogateEscape.test(text) && !isWellFormedValue(value);
}

/** The path of the first number in `value` that is as inexact as `kind` (inexactKind), or undefined. */
function inexactNumberPath(value: unknown, path: string, kind: Inexact): string | undefined {
  if (typeof value === 'number') return inexactKind(value) === kind ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inexactNumberPath(value[i], `${path}[${i}]`, kind);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value) {
    const found = inexactNumberPath(
      (value as Record<string, unknown>)[key],
      path === '' ? key : `${path}.${key}`,
      kind,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Why an event's attributes (as a parser built them from the line `text`) cannot be stored as sent,
 * naming the first number at fault, or undefined: a number beyond what a double holds, or an
 * integer beyond ±(2^53 - 1) while the line holds a run of 16 digits (so the parse may have rounded
 * it). Nearly every line is decided by a walk of its few attrs, never by a scan of the text.
 */
export function inexactNumberIn(text: string, attrs: Readonly<Record<string, unknown>>): string | undefined {
  // the values first: a walk of a few attrs costs less than a scan of the whole line
  const found = inexactKind(attrs);
  if (found === Inexact.none || (found === Inexact.integer && !hasLongDigitRun(text))) return undefined;
  const path = inexactNumberPath(attrs, '', found)?.slice(0, 80);
  return found === Inexact.beyondDouble
    ? `${path}: a number beyond what a double holds cannot be kept; send it as a string`
    : `${path}: an integer beyond 2^53 cannot be kept exactly; send it as a string`;
}

/** How inexact a number is, worst last: an integer past ±(2^53 - 1) is rounded only if the line wrote it in digits. */
const Inexact = { none: 0, integer: 1, beyondDouble: 2 } as const;
type Inexact = (typeof Inexact)[keyof typeof Inexact];

/** The worst inexact number `value` holds (inexactNumberIn, without paths). */
function inexactKind(value: unknown): Inexact {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return Inexact.beyondDouble;
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? Inexact.integer : Inexact.none;
  }
  if (typeof value !== 'object' || value === null) return Inexact.none;
  let worst: Inexact = Inexact.none;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && worst !== Inexact.beyondDouble; i++) {
      const kind = inexactKind(value[i]);
      if (kind > worst) worst = kind;
    }
    return worst;
  }
  for (const key in value) {
    const kind = inexactKind((value as Record<string, unknown>)[key]);
    if (kind > worst) worst = kind;
    if (worst === Inexact.beyondDouble) break;
  }
  return worst;
}
