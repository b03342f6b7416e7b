/** What a parser or decoder found in one slice of input: its events, and what it rejected. */
import type { LineError, ParsedEvent, RejectionCode } from '../model/event.js';

/** Errors kept per slice; further rejections are only counted in `rejected`. */
export const maxLineErrors = 100;

export interface ParseResult {
  events: ParsedEvent[];
  /** Lines of the slice, blank ones included (NDJSON only: a sensor batch holds records, and says 0). */
  lines: number;
  /**
   * Per event, the 1-based line of the slice it was parsed from when that line is in the native
   * format (its canonical content can then be built from the line's bytes: native/hash), else 0.
   */
  nativeLines: number[];
  errors: LineError[];
  rejected: number;
  /** Every rejection by code, including those past the `errors` cap. */
  rejectedByCode: Partial<Record<RejectionCode, number>>;
}

export function emptyParseResult(): ParseResult {
  return { events: [], lines: 0, nativeLines: [], errors: [], rejected: 0, rejectedByCode: {} };
}

/** Counts a rejection of line (or record) `line`, and keeps its error while under the cap. */
export function reject(result: ParseResult, line: number, code: RejectionCode, message: string): void {
  result.rejected++;
  result.rejectedByCode[code] = (result.rejectedByCode[code] ?? 0) + 1;
  if (result.errors.length < maxLineErrors) result.errors.push({ line, code, message });
}
