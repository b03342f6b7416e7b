/**
 * NDJSON bodies → events: split lines, decode, JSON-parse once, refuse application context, map the
 * line's format onto the event record, classify. Runs in the normalize pool on slices of a body; a bad
 * line is counted and reported, never fatal to the slice.
 */
import { classifyEvent } from '../telemetry/classify.js';
import { emptyParseResult, reject, type ParseResult } from '../telemetry/parse-result.js';
import { maxLineBytes, type IngestFormat, type ParsedEvent } from '../model/event.js';
import { findContextKey } from './context-keys.js';
import { detectFormat } from './detect-format.js';
import { parseFalcoLine } from './falco.js';
import { isLineRejection, type LineRejection } from './line-rejection.js';
import { parseNativeLine } from './native.js';
import { parseTetragonLine, tetragonEventKind } from './tetragon.js';
import { hasLoneSurrogate, maxNesting, unstorableValueIn } from './exact-values.js';
import { maxCsvRowBytes } from '../store/csv-row-limit.js';
import { canonicalContent } from '../telemetry/event-hash.js';

// ignoreBOM keeps a U+FEFF in the text, so the whole-chunk and per-line paths treat it alike: it is
// skipped only at the very start of a body (firstLine 1).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** True when `text[start, end)` holds only spaces and tabs. */
function isBlank(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code !== 32 && code !== 9) return false;
  }
  return true;
}

function isBlankBytes(bytes: Uint8Array, start: number, end: number): boolean {
  for (let at = start; at < end; at++) if (bytes[at] !== 32 && bytes[at] !== 9) return false;
  return true;
}

/** The end of a line without its trailing `\r` (CRLF bodies). */
function stripCr(bytes: Uint8Array, start: number, end: number): number {
  return end > start && bytes[end - 1] === 13 ? end - 1 : end;
}

/**
 * True when some line of the chunk may be over maxLineBytes: such a line must not be decoded at all.
 * Jumps a window of maxLineBytes at a time to the last newline in it, so the scan costs a few calls
 * per MiB instead of one per line. It may answer true for a line of exactly the limit plus a `\r`
 * at the end of the chunk; the per-line path then decides exactly.
 */
function hasLongLine(bytes: Uint8Array): boolean {
  for (let lineStart = 0; bytes.length - lineStart > maxLineBytes;) {
    const windowEnd = lineStart + maxLineBytes + 1; // the newline after a line of the limit plus '\r'
    const last = bytes.lastIndexOf(10, windowEnd);
    if (last < lineStart) return true;
    // only a line starting at lineStart can reach windowEnd; it is too long unless it ends in '\r'
    if (last === windowEnd && bytes[last - 1] !== 13 && bytes.indexOf(10, lineStart) === last) return true;
    lineStart = last + 1;
  }
  return false;
}

/**
 * The most bytes an event's canonical content may take: what a rows file's row may hold
 * (maxCsvRowBytes), less room for the row's other fields (its hash, numbers and correlation, a few
 * hundred bytes). A line's event can be several times the line: a Tetragon exec keeps its arguments
 * as text and split into argv (each space of the text an argument of its own), its binary as path,
 * comm and argv[0].
 */
export const maxStoredEventBytes = maxCsvRowBytes - 1024 * 1024;
/**
 * Lines up to this many UTF-16 units make events far under maxStoredEventBytes whatever they repeat
 * (the most measured: 5x, a Tetragon exec's arguments of spaces), so only longer ones have their
 * content measured.
 */
const measuredAbove = 64 * 1024;

/** The UTF-8 size of the event's canonical content, for a line long enough that it may be over the limit. */
function storedBytes(text: string, event: ParsedEvent): number {
  return text.length <= measuredAbove ? 0 : Buffer.byteLength(canonicalContent(event));
}

/**
 * Parses one decoded, non-blank line and files its event or its rejection; `sliceLine` is its
 * 1-based number within the slice.
 */
function parseLine(
  text: string,
  line: number,
  sliceLine: number,
  format: IngestFormat,
  result: ParseResult,
): void {
  try {
    parseLineUnguarded(text, line, sliceLine, format, result);
  } catch (error) {
    // a walk before the nesting check (the surrogate scan) overflows on a line nested thousands deep:
    // that line is refused, never its whole request (any other error is a defect, and fails the slice)
    if (!isStackOverflow(error)) throw error;
    reject(result, line, 'wrong_type', `nested deeper than ${maxNesting} levels; no event keeps it`);
  }
}

/** V8's RangeError for a recursion deeper than its stack. */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && error.message.includes('call stack');
}

/**
 * parseLine without its guard: a walk over a line nested thousands deep may throw a RangeError (a
 * stack overflow).
 */
function parseLineUnguarded(
  text: string,
  line: number,
  sliceLine: number,
  format: IngestFormat,
  result: ParseResult,
): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // V8's message quotes the input; the reply must not echo raw telemetry
    reject(result, line, 'invalid_json', 'not valid JSON (malformed or truncated)');
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    reject(result, line, 'not_an_object', `a JSON ${kind} is not an event object`);
    return;
  }
  if (hasLoneSurrogate(text, value)) {
    const message =
      'a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff unpaired): not Unicode text';
    reject(result, line, 'invalid_unicode', message);
    return;
  }
  const object = value as Record<string, unknown>;
  const lineFormat = format === 'auto' ? detectFormat(object) : format;

  let contextKey = findContextKey(object);
  if (contextKey === undefined && lineFormat !== 'native') {
    const bodyKey = lineFormat === 'falco' ? 'output_fields' : tetragonEventKind(object);
    const body = bodyKey === undefined ? undefined : object[bodyKey];
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const inner = findContextKey(body as Record<string, unknown>);
      if (inner !== undefined) contextKey = `${bodyKey}.${inner}`;
    }
  }
  if (contextKey !== undefined) {
    const message = `${contextKey}: raw telemetry may not assert application context; it comes from bindings`;
    reject(result, line, 'context_not_allowed', message);
    return;
  }

  let parsed: ParsedEvent | LineRejection;
  switch (lineFormat) {
    case 'native':
      parsed = parseNativeLine(object);
      break;
    case 'tetragon':
      parsed = parseTetragonLine(object);
      break;
    case 'falco':
      parsed = parseFalcoLine(object, text);
      break;
    default:
      reject(result, line, 'unknown_format', `format ${String(lineFormat)} is not an ingest format`);
      return;
  }
  if (isLineRejection(parsed)) {
    reject(result, line, parsed.code, parsed.message);
    return;
  }
  const unstorable = unstorableValueIn(text, parsed.attrs);
  if (unstorable !== undefined) {
    reject(result, line, 'wrong_type', unstorable);
    return;
  }
  classifyEvent(parsed);
  const stored = storedBytes(text, parsed);
  if (stored > maxStoredEventBytes) {
    const message = `the event would be stored in ${stored} bytes (its format repeats values of the line); the limit is ${maxStoredEventBytes}`;
    reject(result, line, 'line_too_long', message);
    return;
  }
  result.events.push(parsed);
  result.nativeLines.push(lineFormat === 'native' ? sliceLine : 0);
}

/** The fast path: the whole chunk decoded in one call, lines split on the string. */
function parseText(text: string, format: IngestFormat, firstLine: number, result: ParseResult): void {
  let line = firstLine - 1;
  let start = firstLine === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line++;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    // '{' first: the common case skips the blank scan
    if (text.charCodeAt(start) === 123 || !isBlank(text, start, stop)) {
      parseLine(text.slice(start, stop), line, line - firstLine + 1, format, result);
    }
    start = end + 1;
  }
  result.lines = line - firstLine + 1;
}

/** The slow path, taken when the chunk holds invalid UTF-8 or an over-long line: each line alone. */
function parseBytes(bytes: Uint8Array, format: IngestFormat, firstLine: number, result: ParseResult): void {
  let line = firstLine - 1;
  const bom = firstLine === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  for (let start = bom ? 3 : 0; start < bytes.length;) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    line++;
    const stop = stripCr(bytes, start, end);
    if (stop - start > maxLineBytes) {
      reject(
        result,
        line,
        'line_too_long',
        `the line is ${stop - start} bytes; the limit is ${maxLineBytes}`,
      );
    } else if (!isBlankBytes(bytes, start, stop)) {
      let text: string | undefined;
      try {
        text = decoder.decode(bytes.subarray(start, stop));
      } catch {
        reject(result, line, 'invalid_utf8', 'the line is not valid UTF-8');
      }
      if (text !== undefined) parseLine(text, line, line - firstLine + 1, format, result);
    }
    start = end + 1;
  }
  result.lines = line - firstLine + 1;
}

/**
 * Parses one slice of an NDJSON body. `firstLine` is the 1-based number of the slice's first line in
 * the whole body, so errors name lines of the body. Blank lines are skipped but keep their numbers;
 * a last line without a newline still counts.
 */
export function parseNdjson(bytes: Uint8Array, format: IngestFormat, firstLine: number): ParseResult {
  const result = emptyParseResult();
  let text: string | undefined;
  if (!hasLongLine(bytes)) {
    try {
      text = decoder.decode(bytes);
    } catch {
      text = undefined; // some line is not UTF-8: find which, line by line
    }
  }
  if (text !== undefined) parseText(text, format, firstLine, result);
  else parseBytes(bytes, format, firstLine, result);
  return result;
}
