import assert from 'node:assert/strict';
import { contextKeys, findContextKey } from '../../src/ingest/context-keys.js';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { maxLineErrors } from '../../src/telemetry/parse-result.js';
import { maxLineBytes, type IngestFormat } from '../../src/model/event.js';

const encoder = new TextEncoder();
const exec = (pid: number): string =>
  `{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","pid":${pid}}`;
const falcoExec = '{"time":"2026-01-01T00:00:01Z","output_fields":{"evt.type":"execve","proc.pid":7}}';
const tetragonExec =
  '{"process_exec":{"process":{"pid":8,"binary":"/bin/ls"}},"time":"2026-01-01T00:00:02Z"}';

function parse(
  body: string | Uint8Array,
  format: IngestFormat = 'native',
  firstLine = 1,
): ReturnType<typeof parseNdjson> {
  return parseNdjson(typeof body === 'string' ? encoder.encode(body) : body, format, firstLine);
}

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const chunks = parts.map((part) => (typeof part === 'string' ? encoder.encode(part) : part));
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

describe('parseNdjson', function () {
  it('parses every line when lines end with LF, CRLF or nothing', function () {
    const result = parse(`${exec(1)}\n${exec(2)}\r\n${exec(3)}`);
    assert.deepEqual(
      result.events.map((event) => event.pid),
      [1, 2, 3],
    );
    assert.equal(result.rejected, 0);
    assert.deepEqual(result.errors, []);
  });

  it('skips blank lines without counting them but keeps line numbers', function () {
    const result = parse(`\n${exec(1)}\n\n   \n\t\r\n{"timestamp":"2026-01-01T00:00:00Z"}\n\n`);
    assert.equal(result.events.length, 1);
    assert.equal(result.rejected, 1);
    assert.deepEqual(result.errors, [{ line: 6, code: 'missing_field', message: result.errors[0]?.message }]);
  });

  it('offsets line numbers by firstLine when the body is a slice', function () {
    const result = parse(`${exec(1)}\n{oops\n`, 'native', 501);
    assert.equal(result.errors[0]?.line, 502);
  });

  it('skips a UTF-8 byte order mark only at the start of the body', function () {
    assert.equal(parse(`\uFEFF${exec(1)}\n`).events.length, 1);
    const inSlice = parse(`\uFEFF${exec(1)}\n`, 'native', 9);
    assert.equal(inSlice.errors[0]?.code, 'invalid_json');
  });

  it('rejects truncated JSON as invalid_json without echoing the line', function () {
    const result = parse(
      `${exec(1)}\n{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","comm":"sec\n${exec(2)}\n`,
    );
    assert.equal(result.events.length, 2);
    assert.equal(result.errors[0]?.code, 'invalid_json');
    assert.equal(result.errors[0]?.line, 2);
    assert.doesNotMatch(result.errors[0]?.message ?? '', /sec/);
  });

  it('rejects JSON that is not an object as not_an_object', function () {
    const result = parse('[1,2]\n42\nnull\n"x"\ntrue\n');
    assert.equal(result.rejected, 5);
    assert.deepEqual(
      result.errors.map((error) => error.code),
      Array(5).fill('not_an_object'),
    );
  });

  it('rejects a line of 1 MiB + 1 byte as line_too_long and parses its neighbours', function () {
    const long = `{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","data":"${'a'.repeat(maxLineBytes)}"}`;
    assert.ok(long.length > maxLineBytes + 1);
    const exact = 'x'.repeat(maxLineBytes + 1);
    const result = parse(`${exec(1)}\n${exact}\n${long}\n${exec(2)}`);
    assert.deepEqual(
      result.events.map((event) => event.pid),
      [1, 2],
    );
    assert.deepEqual(
      result.errors.map((error) => [error.line, error.code]),
      [
        [2, 'line_too_long'],
        [3, 'line_too_long'],
      ],
    );
  });

  it('accepts a line of exactly 1 MiB, also when it ends in CRLF', function () {
    const filler = 'a'.repeat(maxLineBytes - exec(1).length - 10);
    const line = `{"x":"${filler}",${exec(1).slice(1)}`.padEnd(maxLineBytes, ' ');
    assert.equal(line.length, maxLineBytes);
    const result = parse(`${line}\r\n${line}\n${line}`);
    assert.equal(result.events.length, 3);
  });

  it('rejects invalid UTF-8 in the middle of a chunk and keeps the other lines and numbers', function () {
    const body = concat(
      `${exec(1)}\n`,
      `{"event_type":"execve","comm":"`,
      new Uint8Array([0xc3, 0x28, 0xff]),
      `"}\n`,
      `${exec(3)}\n`,
    );
    const result = parse(body);
    assert.deepEqual(
      result.events.map((event) => event.pid),
      [1, 3],
    );
    assert.deepEqual(result.errors, [
      { line: 2, code: 'invalid_utf8', message: 'the line is not valid UTF-8' },
    ]);
  });

  it('decodes multi-byte UTF-8 when the chunk is valid', function () {
    const result = parse(
      '{"event_type":"file_open","timestamp":"2026-01-01T00:00:00Z","path":"/tmp/été/日本"}\n',
    );
    assert.equal(result.events[0]?.attrs.path, '/tmp/été/日本');
  });

  it('rejects a native line that carries run context as context_not_allowed', function () {
    const result = parse('{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","run_id":"r1"}\n');
    assert.equal(result.events.length, 0);
    assert.equal(result.errors[0]?.code, 'context_not_allowed');
    assert.match(result.errors[0]?.message ?? '', /^run_id/);
  });

  it('rejects every context key, even with a null value', function () {
    for (const key of contextKeys) {
      const result = parse(`{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","${key}":null}\n`);
      assert.equal(result.errors[0]?.code, 'context_not_allowed', key);
      assert.equal(findContextKey({ [key]: 0 }), key);
    }
  });

  it('rejects context inside Falco output_fields and Tetragon event bodies', function () {
    const falco = '{"time":"2026-01-01T00:00:01Z","output_fields":{"evt.type":"execve","tool_call_id":"t1"}}';
    const tetragon = '{"process_exec":{"process":{"pid":1},"session_id":"s"},"time":"2026-01-01T00:00:02Z"}';
    const result = parse(`${falco}\n${tetragon}\n`, 'auto');
    assert.deepEqual(
      result.errors.map((error) => [error.code, error.message.split(':')[0]]),
      [
        ['context_not_allowed', 'output_fields.tool_call_id'],
        ['context_not_allowed', 'process_exec.session_id'],
      ],
    );
    assert.equal(parse(`${falco}\n`, 'falco').errors[0]?.code, 'context_not_allowed');
  });

  it('rejects a pid given as a string as wrong_type', function () {
    const result = parse('{"event_type":"execve","timestamp":"2026-01-01T00:00:00Z","pid":"4242"}');
    assert.equal(result.errors[0]?.code, 'wrong_type');
    assert.match(result.errors[0]?.message ?? '', /^pid/);
  });

  it('keeps 100 errors but counts every rejected line when more lines are bad', function () {
    const body = `${exec(1)}\n${'{bad\n'.repeat(250)}${exec(2)}\n`;
    const result = parse(body);
    assert.equal(result.events.length, 2);
    assert.equal(result.rejected, 250);
    assert.equal(result.errors.length, maxLineErrors);
    assert.equal(result.errors[99]?.line, 101);
  });

  it('parses each line in its own format when the format is auto', function () {
    const result = parse(
      `${exec(1)}\n${falcoExec}\n${tetragonExec}\n{"event_type":"nope","timestamp":"2026-01-01T00:00:00Z"}\n`,
      'auto',
    );
    assert.deepEqual(
      result.events.map((event) => [event.source, event.pid]),
      [
        ['native_jsonl', 1],
        ['falco', 7],
        ['tetragon', 8],
      ],
    );
    assert.deepEqual(
      result.errors.map((error) => [error.line, error.code]),
      [[4, 'unknown_type']],
    );
  });

  it('parses a line only in the named format when the format is explicit', function () {
    assert.equal(parse(`${tetragonExec}\n`, 'tetragon').events.length, 1);
    assert.equal(parse(`${falcoExec}\n`, 'tetragon').errors[0]?.code, 'unknown_format');
    assert.equal(parse(`${tetragonExec}\n`, 'falco').errors[0]?.code, 'missing_field');
    assert.equal(parse(`${falcoExec}\n`, 'native').errors[0]?.code, 'missing_field');
  });

  it('classifies events after parsing them', function () {
    const result = parse(
      '{"event_type":"connect","timestamp":"2026-01-01T00:00:00Z","dst_ip":"169.254.169.254"}',
    );
    assert.equal(result.events[0]?.type, 'metadata_ip');
    assert.equal(result.events[0]?.attrs.observed_type, 'network_connect');
  });

  it('returns nothing when the body is empty or only newlines', function () {
    for (const [body, lines] of [
      ['', 0],
      ['\n', 1],
      ['\r\n\r\n', 2],
    ] as const)
      assert.deepEqual(parse(body), {
        events: [],
        lines,
        nativeLines: [],
        errors: [],
        rejected: 0,
        rejectedByCode: {},
      });
  });
});
