/** Why a format parser refused one line; parseNdjson adds the line number and counts it as `invalid`. */
import type { RejectionCode } from '../model/event.js';
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

/** An `invalid_time` rejection: the field holds no instant, or one the store cannot hold. */
export function rejectTime(field: string): LineRejection {
  return { code: 'invalid_time', message: `${field}: not an RFC 3339 date-time in years 1678..2261 UTC` };
}

/** A `wrong_type` rejection naming the field, what it must be, and what it was. */
export function rejectWrongType(field: string, expected: string, value: unknown): LineRejection {
  return { code: 'wrong_type', message: `${field}: expected ${expected}, got ${describeJson(value)}` };
}
