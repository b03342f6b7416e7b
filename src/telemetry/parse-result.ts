/** What a parser or decoder found in one slice of input: its events, and what it rejected. */
import type { LineError, ParsedEvent, RejectionCode } from './event.js';

/** Errors kept per slice; further rejections are only counted in `rejected`. */
export const maxLineErrors = 100;

export interface ParseResult {
  events: ParsedEvent[];
  errors: LineError[];
  rejected: number;
  /** Every rejection by code, including those past the `errors` cap. */
  rejectedByCode: Partial<Record<RejectionCode, number>>;
}

export function emptyParseResult(): ParseResult {
  return { events: [], errors: [], rejected: 0, rejectedByCode: {} };
}

/** Counts a rejection of line (or record) `line`, and keeps its error while under the cap. */
export function reject(result: ParseResult, line: number, code: RejectionCode, message: string): void {
  result.rejected++;
  result.rejectedByCode[code] = (result.rejectedByCode[code] ?? 0) + 1;
  if (result.errors.length < maxLineErrors) result.errors.push({ line, code, message });
}
