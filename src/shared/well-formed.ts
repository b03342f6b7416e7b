/** Whether text is Unicode: a UTF-16 string without a lone surrogate, so it has a UTF-8 form. */

// String.prototype.isWellFormed (ES2024, V8 11.1): Node 20 has it, TypeScript's ES2023 lib does not
interface WellFormed {
  isWellFormed(): boolean;
}

/** True when `text` holds no UTF-16 surrogate without its pair. */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as WellFormed).isWellFormed();
}
