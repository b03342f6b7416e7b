/**
 * Ingest bodies for the fuzzer: real producer lines, and the same lines broken the ways a hostile
 * or broken producer breaks them (truncated, control characters raw and escaped, CR line ends, NUL
 * escapes, invalid UTF-8, lone surrogates, deep nesting, lines over the 1 MiB limit, very many
 * lines, wrong types). Every body is one request's; the daemon must answer each with 200 and count
 * every bad line apart, whatever it holds.
 */
import type { NdjsonCorpus, ProducerFormat } from './ndjson-corpus.js';
import type { Rng } from './rng.js';

/** A body and the format parameter it is sent with. */
export interface NdjsonBody {
  body: Buffer;
  format: ProducerFormat | 'auto';
  /** What was done to it, for the failure log. */
  note: string;
  /** Some of its lines were broken. */
  hostile: boolean;
}

const formats: readonly ProducerFormat[] = ['native', 'tetragon', 'falco'];
/** Bodies stop growing here: well under the daemon's 64 MiB limit, and cheap enough to make. */
const maxBodyBytes = 32 * 1024 * 1024;
/** One line past the daemon's line limit (src/ingest/native-format.md). */
const maxLineBytes = 1024 * 1024;

/** A body of real lines of one format, some of them (with `hostile`) broken. */
export function ndjsonBody(rng: Rng, corpus: NdjsonCorpus, hostile: boolean): NdjsonBody {
  const format = rng.pick(formats);
  const count = rng.weighted({ one: 3, few: 5, many: 2, lots: hostile ? 0.3 : 0 });
  const lineCount = {
    one: 1,
    few: rng.between(2, 50),
    many: rng.between(200, 2000),
    lots: rng.between(50_000, 150_000),
  }[count];
  const notes: string[] = [];
  const lines: Buffer[] = [];
  let bytes = 0;
  // a body of many lines stops near 32 MiB: some producer lines (a Falco metrics snapshot) are 5 KiB
  for (let i = 0; i < lineCount && bytes < maxBodyBytes; i++) {
    let line: Buffer = Buffer.from(varied(rng, rng.pick(corpus[format])));
    // the first line is where a sniffer decides: break it often
    if (hostile && (i === 0 ? rng.chance(0.5) : rng.chance(0.05))) {
      const broken = breakLine(rng, line, i === 0);
      line = broken.line;
      if (notes.length < 6) notes.push(`line ${i + 1}: ${broken.how}`);
    }
    lines.push(line);
    bytes += line.length + 1;
  }
  notes.unshift(`${lines.length} ${format} lines`);
  const ending = hostile
    ? rng.weighted({ lf: 6, crlf: 2, cr: 1, none: 1 })
    : rng.weighted({ lf: 8, crlf: 1, none: 1 });
  if (ending !== 'lf') notes.push(`line ends ${ending}`);
  const separator = Buffer.from({ lf: '\n', crlf: '\r\n', cr: '\r', none: '\n' }[ending]);
  const parts: Buffer[] = [];
  if (hostile && rng.chance(0.1)) {
    parts.push(Buffer.from('\ufeff'));
    notes.push('byte order mark');
  }
  lines.forEach((line, i) => {
    parts.push(line);
    if (i < lines.length - 1 || ending !== 'none') parts.push(separator);
  });
  const sendFormat = rng.chance(0.3) ? 'auto' : format;
  return { body: Buffer.concat(parts), format: sendFormat, note: notes.join('; '), hostile };
}

/** The line with a fresh time and pid, so repeated fixture lines are distinct events. */
function varied(rng: Rng, line: string): string {
  const second = String(rng.int(60)).padStart(2, '0');
  return line
    .replace(/"(timestamp|time)":"2026-01-01T00:00:\d\d/, `"$1":"2026-01-01T00:${second}:${second}`)
    .replace(/"pid":\d+/, `"pid":${rng.between(1, 4_000_000)}`);
}

/**
 * How often each way of breaking a line is chosen: control characters escaped inside a value (what
 * a JSON encoder writes for them, and what reaches the rows file) most of all.
 */
const breakWeights = {
  truncated: 2,
  rawControl: 2,
  escapedControl: 6,
  rawCr: 1,
  rawNul: 1,
  invalidUtf8: 2,
  surrogate: 1,
  deep: 1,
  hugeString: 1,
  wrongType: 2,
  notAnObject: 1,
  blank: 1,
  prototypeKeys: 1,
  duplicateKey: 1,
  bomInside: 1,
  lineSeparators: 1,
} as const;

/** The first line's weights: there, an escaped line end in a value once failed a whole body (issue 41). */
const firstLineWeights = { ...breakWeights, escapedControl: 25 } as const;

/** One way to break a line, and its name (`how`, with the field it went into). */
function breakLine(rng: Rng, line: Buffer, first: boolean): { line: Buffer; how: string } {
  const text = line.toString();
  let field: string | undefined;
  const inString = (insert: string | Buffer): Buffer => {
    // at the start of one of the line's string values (any field: each lands in another column)
    const starts: number[] = [];
    for (let at = line.indexOf('":"'); at !== -1; at = line.indexOf('":"', at + 1)) starts.push(at + 3);
    if (starts.length === 0) return Buffer.concat([line, Buffer.from(insert)]);
    const at = rng.pick(starts);
    field = line.subarray(line.lastIndexOf('"', at - 4) + 1, at - 3).toString();
    return Buffer.concat([line.subarray(0, at), Buffer.from(insert), line.subarray(at)]);
  };
  const broken = breakWith(rng.weighted(first ? firstLineWeights : breakWeights), rng, line, text, inString);
  return field === undefined ? broken : { line: broken.line, how: `${broken.how} in ${field}` };
}

/** Breaks `line` the way named; `inString` puts bytes at the start of one of its string values. */
function breakWith(
  way: keyof typeof breakWeights,
  rng: Rng,
  line: Buffer,
  text: string,
  inString: (insert: string | Buffer) => Buffer,
): { line: Buffer; how: string } {
  switch (way) {
    case 'truncated':
      return { line: line.subarray(0, rng.int(line.length)), how: 'truncated' };
    case 'rawControl': {
      const byte = rng.pick([0x01, 0x08, 0x09, 0x0b, 0x0c, 0x1b, 0x1e, 0x1f, 0x7f]);
      return { line: inString(Buffer.from([byte])), how: `raw control byte 0x${byte.toString(16)}` };
    }
    case 'escapedControl': {
      // line ends first: a reader of the rows file that guesses its line ends trips on them
      const escape = rng.pick([
        '\\r',
        '\\r',
        'a\\rb',
        '\\n',
        '\\r\\n',
        '\\r\\n',
        '\\u0000',
        '\\u0001',
        '\\u001e',
        '\\ufeff',
        '\\u2028',
        '\\t',
        '\\u007f',
      ]);
      return { line: inString(escape), how: `escaped ${escape}` };
    }
    case 'rawCr':
      return { line: inString(Buffer.from([0x0d])), how: 'raw CR inside a string' };
    case 'rawNul':
      return { line: inString(Buffer.from([0x00])), how: 'raw NUL inside a string' };
    case 'invalidUtf8': {
      const bytes = rng.pick([
        [0xff],
        [0xc0, 0x80],
        [0xed, 0xa0, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
      ]);
      return {
        line: inString(Buffer.from(bytes)),
        how: `invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
      };
    }
    case 'surrogate':
      return {
        line: inString(rng.pick(['\\ud800', '\\udc00', '\\ud800\\u0041'])),
        how: 'lone surrogate escape',
      };
    case 'deep': {
      const depth = rng.pick([33, 1000, 100_000]);
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      return { line: Buffer.from(text.replace(/^\{/, `{"deep":${nested},`)), how: `nested ${depth} deep` };
    }
    case 'hugeString': {
      const size = rng.pick([maxLineBytes - 200, maxLineBytes + 1, 3 * maxLineBytes]);
      return { line: inString('x'.repeat(size)), how: `a string of ${size} bytes` };
    }
    case 'wrongType': {
      const [field, value] = rng.pick([
        ['pid', '"x"'],
        ['pid', '-1'],
        ['pid', '1e20'],
        ['pid', '4294967296'],
        ['pid', '1.5'],
        ['timestamp', '123'],
        ['timestamp', '"2026-13-45T99:99:99Z"'],
        ['timestamp', '"10000-01-01T00:00:00Z"'],
        ['timestamp', '"2026-01-01T00:00:01.1234567890Z"'],
        ['event_type', '5'],
        ['event_type', '"no_such_type"'],
        ['cgroup_id', '9007199254740993'],
        ['argv', '"not a list"'],
        ['flags', '-1'],
        ['comm', '{"a":1}'],
      ] as const);
      return { line: Buffer.from(text.replace(/^\{/, `{"${field}":${value},`)), how: `${field}: ${value}` };
    }
    case 'notAnObject':
      return {
        line: Buffer.from(rng.pick(['null', '[]', '1', '"x"', 'true', '{}', '{"event_type":null}'])),
        how: 'not an event object',
      };
    case 'blank':
      return { line: Buffer.from(rng.pick(['', ' ', '\t', '  \t '])), how: 'blank' };
    case 'prototypeKeys':
      return {
        line: Buffer.from(
          text.replace(/^\{/, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},'),
        ),
        how: 'prototype keys',
      };
    case 'duplicateKey':
      return { line: Buffer.from(text.replace(/^\{/, '{"comm":"a","comm":"b",')), how: 'duplicate key' };
    case 'bomInside':
      return { line: Buffer.concat([Buffer.from('\ufeff'), line]), how: 'byte order mark inside the body' };
    case 'lineSeparators':
      return { line: inString('\u2028\u2029'), how: 'raw U+2028 U+2029' };
  }
}
