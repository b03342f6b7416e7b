/**
 * Reads a JSON request body strictly: valid UTF-8, valid JSON, an object, within a size and a
 * nesting limit. provd's JSON bodies are small and shallow (a bind, a recorded command, a gate
 * question); a body of a million nested arrays took the main thread a second to parse and check.
 */
import { ProvdError } from '../errors.js';

/** The body limit of every JSON endpoint (`--max-body-bytes`, when lower, applies to them too). */
export const maxJsonBodyBytes = 1024 * 1024;

/** Objects and arrays within one another a JSON body may hold. */
export const maxJsonBodyNesting = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a JSON object, or a 400 invalid_argument naming what is wrong. */
export function parseJsonObject(body: Uint8Array | undefined): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(body ?? new Uint8Array(0));
  } catch {
    throw new ProvdError('invalid_argument', 'body: not valid UTF-8');
  }
  const nesting = nestingOf(text);
  if (nesting > maxJsonBodyNesting) {
    throw new ProvdError(
      'invalid_argument',
      `body: nested deeper than ${maxJsonBodyNesting} levels of objects and arrays`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProvdError('invalid_argument', 'body: not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProvdError('invalid_argument', 'body: must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * How deep the brackets of `text` nest outside its strings, counted before parsing, up to one past
 * the limit. Invalid JSON may count wrong; JSON.parse refuses it next.
 */
function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c)
        at++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > maxJsonBodyNesting) return deepest;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}
