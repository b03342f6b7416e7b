/**
 * Unicode checks of parsed lines. JSON can escape a lone UTF-16 surrogate (`"\udc00"`), which no
 * Unicode text holds: UTF-8 cannot encode it, so the rows file would store U+FFFD instead and the
 * stored event would no longer match its hash. RFC 8785 (via I-JSON) refuses such strings too.
 */

// an escape of a surrogate code unit (U+D800..U+DFFF): the only way a decoded line can hold a lone one
const surrogateEscape = /\\u[dD][89a-fA-F]/;

/** True when every string (keys included) of a parsed JSON value is well-formed UTF-16. */
function isWellFormedValue(value: unknown): boolean {
  if (typeof value === 'string') return (value as unknown as WellFormed).isWellFormed();
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(isWellFormedValue);
  for (const key in value) {
    if (!(key as unknown as WellFormed).isWellFormed()) return false;
    if (!isWellFormedValue((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

// String.prototype.isWellFormed (ES2024, V8 11.1): Node 20 has it, TypeScript's ES2023 lib does not
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * True when the line parsed from `text` holds a lone surrogate anywhere. Lines without a surrogate
 * escape (nearly all) are decided by one scan of the text, never by walking the value.
 */
export function hasLoneSurrogate(text: string, value: unknown): boolean {
  return surrogateEscape.test(text) && !isWellFormedValue(value);
}
