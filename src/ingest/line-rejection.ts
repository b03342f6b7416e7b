/** Why a format parser refused one line; parseNdjson adds the line number and counts it as `invalid`. */
import type { RejectionCode } from '../telemetry/event.js';
import { describeJson } from './field-value.js';

/** A refused line: a rejection code and a message that names the offending field. */
export interface LineRejection {
  code: RejectionCode;
  message: string;
}

/** Builds a LineRejection (parsers return it; they never throw for bad input). */
export function rejectLine(code: RejectionCode, message: string): LineRejection {
  return { code, message };
}

/** True when a parser's result is a rejection rather than an event. */
export function isLineRejection(result: object): result is LineRejection {
  return (result as Partial<LineRejection>).code !== undefined;
}

/** A `wrong_type` rejection naming the field, what it must be, and what it was. */
export function rejectWrongType(field: string, expected: string, value: unknown): LineRejection {
  return { code: 'wrong_type', message: `${field}: expected ${expected}, got ${describeJson(value)}` };
}
