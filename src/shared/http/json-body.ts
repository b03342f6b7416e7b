/** Reads a JSON request body strictly: valid UTF-8, valid JSON, an object. */
import { ProvdError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a JSON object, or a 400 invalid_argument naming what is wrong. */
export function parseJsonObject(body: Uint8Array | undefined): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(body ?? new Uint8Array(0));
  } catch {
    throw new ProvdError('invalid_argument', 'body: not valid UTF-8');
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
