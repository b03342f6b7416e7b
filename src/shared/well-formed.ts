/** Whether text is Unicode: a UTF-16 string without a lone surrogate, so it has a UTF-8 form. */

// String.prototype.isWellFormed (ES2024, V8 11.1): Node 20 has it, TypeScript's ES2023 lib does not
interface WellFormed {
  isWellFormed(): boolean;
}

/** True when `text` holds no UTF-16 surrogate without its pair. */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as WellFormed).isWellFormed();
}

/** True when every string (keys included) of a parsed JSON value is well-formed UTF-16. */
export function isWellFormedValue(value: unknown): boolean {
  return illFormedField(value, '') === null;
}

/**
 * The first field of a parsed JSON value whose string (or one of whose keys) holds a lone surrogate,
 * as `a.b[2]` below `path` (a key is named by the object holding it); null when there is none.
 */
export function illFormedField(value: unknown, path: string): string | null {
  if (typeof value === 'string') return isWellFormedText(value) ? null : path;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = illFormedField(item, `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const key in value) {
    if (!isWellFormedText(key)) return `a key of ${path === '' ? 'the object' : path}`;
    const found = illFormedField(
      (value as Record<string, unknown>)[key],
      path === '' ? key : `${path}.${key}`,
    );
    if (found !== null) return found;
  }
  return null;
}
