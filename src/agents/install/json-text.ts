/**
 * Edits a JSON settings file as text, so every byte provd does not change stays as the user wrote
 * it: a member's value is replaced, inserted or removed in place, never the file re-serialized.
 * Comments (`//`, `/* *\/`), where the agent's own reader allows them (Gemini CLI), are read as
 * blanks of the same length, so offsets in the blanked text are offsets in the file.
 */

/** A settings file's text refused, with the 1-based line of the mistake (and the file, once known). */
export class SettingsSyntaxError extends Error {
  file: string | null = null;

  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** Runs `read` on `file`'s text, naming the file in a SettingsSyntaxError it throws. */
export function readingFile<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SettingsSyntaxError) error.file = file;
    throw error;
  }
}

/** Where one member of a JSON object sits: its key's opening quote and its value's span. */
export interface JsonMember {
  key: string;
  start: number;
  valueStart: number;
  valueEnd: number;
}

/** An object's `{`, its `}` and its members, in the order written. */
export interface JsonObjectSpan {
  start: number;
  end: number;
  members: JsonMember[];
}

/** `text` with each comment replaced by spaces (line breaks kept), strings left alone. */
export function blankComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (char === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += char;
      i++;
    }
  }
  return out;
}

/** Parses `text` (already blanked) as JSON, or says on which line and column it is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Node 20's message quotes the file and gives no position: find the mistake ourselves
    const offset = jsonErrorOffset(text);
    const before = text.slice(0, offset).split('\n');
    const found =
      offset < text.length ? `unexpected ${JSON.stringify(text[offset])}` : 'unexpected end of file';
    throw new SettingsSyntaxError(
      `not valid JSON: ${found} at column ${before.at(-1)!.length + 1}`,
      before.length,
    );
  }
}

/** The offset of the first character that keeps `text` from being one JSON value (its length: it ends early). */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new JsonMistake(i);
  };
  const space = (): void => {
    i = skipSpace(text, i);
  };
  const match = (pattern: RegExp): void => {
    pattern.lastIndex = i;
    if (!pattern.test(text)) fail();
    i = pattern.lastIndex;
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          match(jsonString);
          space();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        space();
        if (text[i] === close) return void i++;
        if (text[i] !== ',') fail();
        i++;
      }
    }
    if (char === '"') return match(jsonString);
    if (char === 't' || char === 'f' || char === 'n') return match(/true|false|null/y);
    match(/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y);
  };
  try {
    value();
    space();
    return i < text.length ? i : text.length;
  } catch (thrown) {
    return thrown instanceof JsonMistake ? thrown.offset : text.length; // a RangeError: nested too deep to say
  }
}

class JsonMistake extends Error {
  constructor(readonly offset: number) {
    super(`not JSON at ${offset}`);
  }
}

// eslint-disable-next-line no-control-regex
const jsonString = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** The members of the object whose `{` is at `start`, in `text` that parsed as JSON. */
export function objectAt(text: string, start: number): JsonObjectSpan {
  const members: JsonMember[] = [];
  let i = skipSpace(text, start + 1);
  while (text[i] !== '}') {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, valueStart);
    members.push({ key, start: i, valueStart, valueEnd: end });
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return { start, end: i, members };
}

/** The member JSON.parse reads for `key`: the last one of that name. */
export function memberOf(span: JsonObjectSpan, key: string): JsonMember | undefined {
  return span.members.findLast((member) => member.key === key);
}

/**
 * `text` with `key` of the object `span` set to `value` (replaced in place, or added after the last
 * member), or removed when `value` is undefined. `depth` is the object's nesting, for indentation.
 */
export function setMember(
  text: string,
  span: JsonObjectSpan,
  key: string,
  value: unknown,
  indent: string,
  depth: number,
): string {
  const existing = memberOf(span, key);
  const inner = '\n' + indent.repeat(depth + 1);
  if (value === undefined) {
    if (existing === undefined) return text;
    const index = span.members.indexOf(existing);
    const next = span.members[index + 1];
    if (index > 0) return splice(text, span.members[index - 1]!.valueEnd, existing.valueEnd, '');
    if (next !== undefined) return splice(text, existing.start, next.start, '');
    return splice(text, span.start + 1, span.end, '');
  }
  const serialized = JSON.stringify(value, null, indent).replaceAll('\n', inner);
  if (existing !== undefined) return splice(text, existing.valueStart, existing.valueEnd, serialized);
  const member = `${JSON.stringify(key)}: ${serialized}`;
  const last = span.members.at(-1);
  if (last !== undefined) return splice(text, last.valueEnd, last.valueEnd, `,${inner}${member}`);
  return splice(text, span.start + 1, span.end, `${inner}${member}\n${indent.repeat(depth)}`);
}

/** The indentation the file uses (its first indented key), two spaces when it shows none. */
export function indentOf(text: string): string {
  return /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  i++;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index just past the JSON value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return stringEnd(text, i);
  if (first === '{' || first === '[') {
    let depth = 0;
    while (i < text.length) {
      const char = text[i]!;
      if (char === '"') {
        i = stringEnd(text, i);
        continue;
      }
      if (char === '{' || char === '[') depth++;
      else if (char === '}' || char === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  return i;
}
