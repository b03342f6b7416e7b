/**
 * How much of a daemon's answer the CLI reads: never more than a stated cap, so a hostile or broken
 * server at --url cannot make the CLI hold an answer of any size in memory. An export is capped at
 * the daemon's own export cap (views/export/export-limits.ts); every other answer is JSON, a page
 * or a bounded tree, capped at maxJsonAnswerBytes.
 */
import { ProvdError } from '../shared/errors.js';

/** The most the CLI reads of a JSON answer (the daemon's largest are pages of at most 1,000 events). */
export const maxJsonAnswerBytes = 256 * 1024 * 1024;

/** Byte counts in words: 268435456 bytes (256 MiB). */
function sizeText(bytes: number): string {
  return `${bytes} bytes (${Math.round(bytes / (1024 * 1024))} MiB)`;
}

/** The refusal of an answer over `maxBytes`; `what` names the answer and what to do. */
export function answerTooLarge(maxBytes: number, what: string): ProvdError {
  return new ProvdError(
    'PROVD_ERR_CLI_TOO_LARGE',
    `${what} is over ${sizeText(maxBytes)}, the most provd reads of it: refused`,
  );
}

/**
 * Reads `body` whole, at most `maxBytes`: a declared Content-Length over the cap is refused before
 * reading, and reading stops (and the stream is cancelled) as soon as the bytes pass it.
 */
export async function readAtMost(
  body: AsyncIterable<Uint8Array> | null,
  declaredLength: string | null | undefined,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  if (declaredLength != null && Number(declaredLength) > maxBytes) throw answerTooLarge(maxBytes, what);
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of body ?? []) {
    total += part.byteLength;
    // leaving the loop cancels the stream: the rest is never read
    if (total > maxBytes) throw answerTooLarge(maxBytes, what);
    parts.push(part);
  }
  return Buffer.concat(parts, total);
}
