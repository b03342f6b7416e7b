import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { knownHash, knownLine } from '../support/known-event.js';
import { maxNesting } from '../../src/ingest/exact-values.js';
import { maxStoredEventBytes } from '../../src/ingest/parse-ndjson.js';
import { bind, ingest, nativeLine, pageAll, rehash } from '../support/telemetry.js';

/** `depth` arrays, each inside the one before, as JSON text (built without recursion). */
function nestedText(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** nestedText parsed. */
function nest(depth: number): unknown {
  return JSON.parse(nestedText(depth)) as unknown;
}

/** A native line whose attribute `x` is nested `depth` arrays deep, written as text (no recursion here). */
function deepLine(depth: number, extra = ''): string {
  return `{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z"${extra},"x":${nestedText(depth)}}`;
}

/** Lines a hostile or unusual producer may send that the store must keep exactly as sent. */
const exactLines = [
  nativeLine({ comm: 'x\u0000y' }),
  nativeLine({ comm: '\r\n' }),
  nativeLine({ comm: '\ufeffbom', cgroup_id: '\ufeff777' }),
  nativeLine({ comm: '\ufeff\ufeff' }),
  nativeLine({ comm: 'a"b,c\\' }),
  nativeLine({ comm: '\u2028\u001b[31m😀' }),
  nativeLine({ container_id: '\u0000\ufeff' }),
  nativeLine({ pid: 3_000_000_000, tgid: 3_000_000_000 }),
  nativeLine({ pid: 4_294_967_295, tgid: 0, uid: 4_294_967_295 }),
  nativeLine({ comm: 'logged-in', login_uid: 1000 }),
  nativeLine({ comm: 'login-edge', login_uid: 4_294_967_295 }),
  nativeLine({ timestamp: '1678-01-01T00:00:00Z' }),
  nativeLine({ timestamp: '2261-12-31T23:59:59.999999999Z' }),
  nativeLine({ timestamp: '2026-01-01T00:00:01+14:00' }),
  nativeLine({ path: '\ufeff/etc/passwd', 'key\u0000with\ufeff': '\ud83d\ude00' }),
  '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","ppid":7,"comm":"\\ud83d\\ude00 paired"}',
  nativeLine({ comm: 'big-ints', inode: '18446744073709551615', largest_exact: 9_007_199_254_740_991 }),
  // nested as deep as an event keeps: attrs is level 1, so x's innermost array is level 128
  nativeLine({ comm: 'deepest', x: nest(maxNesting - 1) }),
  // an integer evt.time is read exactly from the line's digits; it never reaches attrs
  '{"output_fields":{"evt.type":"execve","proc.pid":4242,"proc.ppid":7,"proc.name":"falco-ns","evt.time":1767225604000000123}}',
];

/** Lines whose values no column can hold exactly: each must be a line error of its own request. */
const unstorableLines: [string, string][] = [
  [nativeLine({ pid: 4_294_967_296 }), 'wrong_type'],
  [nativeLine({ ppid: -1 }), 'wrong_type'],
  [nativeLine({ login_uid: 'root' }), 'wrong_type'],
  [nativeLine({ timestamp: '3000-01-01T00:00:00Z' }), 'invalid_time'],
  [nativeLine({ timestamp: '1600-01-01T00:00:00Z' }), 'invalid_time'],
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","comm":"x\\udc00y"}', 'invalid_unicode'],
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","path":"\\ud800"}', 'invalid_unicode'],
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","\\udfff":1}', 'invalid_unicode'],
  ['{"output_fields":{"evt.type":"execve","proc.pid":1,"evt.time":99999999999999999999}}', 'invalid_time'],
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","inode":18446744073709551615}', 'wrong_type'],
  // beyond a double: JSON.parse makes it Infinity, which no canonical JSON can write (once a 500)
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","x":1e999999}', 'wrong_type'],
  ['{"output_fields":{"evt.type":"execve","proc.pid":1,"fd.num":-1e400}}', 'wrong_type'],
  ['{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","a":[1e20,1,-1e999]}', 'wrong_type'],
  // nested one level deeper than an event keeps, and 50,000 deep (once a stack overflow and a 500),
  // the last with a surrogate escape, whose check walks the whole line before the nesting is measured
  [deepLine(maxNesting), 'wrong_type'],
  [deepLine(50_000), 'wrong_type'],
  [deepLine(50_000, ',"comm":"\\ud83d\\ude00"'), 'wrong_type'],
  [
    '{"event_type":"execve","timestamp":"2026-01-01T00:00:01Z","http":{"sizes":[1,9007199254740993]}}',
    'wrong_type',
  ],
];

describe('what the store keeps', function () {
  const daemons = useDaemonFixture();

  it('stores every accepted value as sent, so each event recomputes to its stored hash', async function () {
    const daemon = await daemons.start();
    // every line has ppid 7 (nativeLine's default is 1), the known line has pid 4242: the pid tier takes them all
    await bind(daemon.url, { run_id: 'run-exact', tool_call_id: 'tc', pid: 7, root_pid: 4242 });
    const lines = [...exactLines.map((line) => line.replace('"ppid":1', '"ppid":7')), knownLine];
    const { status, body } = await ingest(daemon.url, lines.join('\n'), 'auto');
    assert.equal(status, 200);
    assert.deepEqual(body['errors'], []);
    assert.equal(body['accepted'], lines.length);

    const events = await pageAll(daemon.url, 'run=run-exact');
    assert.equal(events.length, lines.length);
    for (const event of events) assert.equal(rehash(event), event['hash'], JSON.stringify(event));
    const byComm = new Map(events.map((event) => [event['comm'], event]));
    for (const comm of ['x\u0000y', '\r\n', '\ufeffbom', '\ufeff\ufeff', 'a"b,c\\', '\u2028\u001b[31m😀'])
      assert.ok(byComm.has(comm), `comm ${JSON.stringify(comm)} is stored as sent`);
    assert.equal(byComm.get('\ufeffbom')?.['cgroup_id'], '\ufeff777');
    assert.deepEqual(
      ['logged-in', 'login-edge', 'sh'].map((comm) => byComm.get(comm)?.['login_uid']),
      [1000, 4_294_967_295, null],
    );
    const pids = events.map((event) => event['pid']);
    assert.ok(pids.includes(3_000_000_000) && pids.includes(4_294_967_295));
    const times = events.map((event) => event['time']);
    assert.ok(times.includes('1678-01-01T00:00:00.000000000Z'));
    assert.ok(times.includes('2261-12-31T23:59:59.999999999Z'));
    assert.ok(times.includes('2025-12-31T10:00:01.000000000Z'), 'the +14:00 offset is applied');
    assert.equal(byComm.get('falco-ns')?.['time'], '2026-01-01T00:00:04.000000123Z');
    const bigInts = byComm.get('big-ints')?.['attrs'] as Record<string, unknown>;
    assert.deepEqual(
      [bigInts['inode'], bigInts['largest_exact']],
      ['18446744073709551615', 9_007_199_254_740_991],
    );
    const known = events.find((event) => event['pid'] === 4242 && event['comm'] === 'curl');
    assert.equal(known?.['hash'], knownHash, 'the stored hash of the known line is its known answer');
  });

  it('answers a line error in the same 200 for each value no column can hold, and stores the rest', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-mixed', tool_call_id: 'tc', cgroup_id: '777' });
    const good = [nativeLine({ comm: 'first' }), nativeLine({ comm: 'last' })];
    const body = [good[0]!, ...unstorableLines.map(([line]) => line), good[1]!].join('\n');
    const answer = await ingest(daemon.url, body, 'auto');
    assert.equal(answer.status, 200);
    assert.equal(answer.body['accepted'], 2);
    const errors = answer.body['errors'] as { line: number; code: string; message: string }[];
    assert.deepEqual(
      errors.map((error) => [error.line, error.code]),
      unstorableLines.map(([, code], i) => [i + 2, code]),
    );
    assert.match(errors.at(-1)!.message, /^http\.sizes\[1\]: an integer beyond 2\^53/);
    const deep = errors.filter((error) => error.message.includes('nested deeper'));
    assert.equal(deep.length, 3);
    for (const error of deep)
      assert.match(error.message, /nested deeper than 128 levels; no event keeps it$/);
    const beyond = errors.filter((error) => error.message.includes('beyond what a double holds'));
    assert.deepEqual(
      beyond.map((error) => error.message.split(':')[0]),
      ['x', 'output_fields.fd.num', 'a[2]'],
    );
    // a message never echoes the input's lone surrogate back (it would break the answer's JSON for strict readers)
    for (const error of errors) assert.doesNotMatch(error.message, /[\ud800-\udfff]/);
    const events = await pageAll(daemon.url, 'run=run-mixed');
    assert.deepEqual(events.map((event) => event['comm']).sort(), ['first', 'last']);
  });

  it('stores an event larger than its line up to the row limit, and refuses one over it as a line error', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-big', tool_call_id: 'tc', pid: 8 });
    const exec = (pid: number, args: string): string =>
      JSON.stringify({
        process_exec: { process: { pid, binary: '/bin/echo', arguments: args } },
        time: '2026-01-01T00:00:02Z',
      });
    // under 1 MiB each; a Tetragon exec keeps its arguments as text and split into argv, so the first
    // is stored in ~2.9 MB (over DuckDB's default row of 2,000,000 bytes: once a 500 for the whole
    // request) and the second would take ~5.2 MB (each space an empty argument)
    const stored = exec(8, 'a '.repeat(480_000).trim());
    const over = exec(8, ' '.repeat(1_040_000));
    const body = [exec(8, 'small'), stored, over].join('\n');
    const answer = await ingest(daemon.url, body, 'tetragon');
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body['accepted'], 2);
    const errors = answer.body['errors'] as { line: number; code: string; message: string }[];
    assert.deepEqual(
      errors.map((error) => [error.line, error.code]),
      [[3, 'line_too_long']],
    );
    assert.match(
      errors[0]!.message,
      new RegExp(`^the event would be stored in \\d+ bytes .*the limit is ${maxStoredEventBytes}$`),
    );
    const events = await pageAll(daemon.url, 'run=run-big', 10);
    const args = events.map((event) => (event['attrs'] as Record<string, unknown>)['arguments']);
    assert.deepEqual(args, ['small', 'a '.repeat(480_000).trim()]);
    assert.equal(((events[1]!['attrs'] as Record<string, unknown>)['argv'] as string[]).length, 480_001);
    for (const event of events) assert.equal(rehash(event), event['hash']);
  });

  it('stores every string field with every control character, and numbers at and past each limit, exactly or as a line error, never a 5xx', async function () {
    const daemon = await daemons.start();
    // every line has pid 4242 (nativeLine's), unless the pid itself is swept: the root pid claims the rest
    await bind(daemon.url, { run_id: 'run-sweep', tool_call_id: 'tc', pid: 7, root_pid: 4242 });
    const characters = [
      ...Array.from({ length: 32 }, (_v, code) => String.fromCharCode(code)),
      ...['\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '"', '\\', '\ud83d\ude00'],
    ];
    const stringFields = [
      'comm',
      'cgroup_id',
      'container_id',
      'source',
      'path',
      'new_path',
      'command',
      'cwd',
    ];
    const moreStrings = ['query', 'data', 'flags', 'note', 'dst_ip'];
    /** [the line, where its value reads back (top level, or attrs), the field, the value sent]. */
    const sent: [line: string, field: string, value: unknown][] = [];
    for (const field of [...stringFields, ...moreStrings, 'argv', 'key']) {
      for (const character of characters) {
        const value = `a${character}b`;
        const fields: Record<string, unknown> =
          field === 'argv' ? { argv: [value] } : field === 'key' ? { [value]: 1 } : { [field]: value };
        sent.push([nativeLine({ ppid: 7, sweep: sent.length, ...fields }), field, value]);
      }
    }
    const numbers = [
      '0',
      '-0',
      '-1',
      '1.5',
      '1e2',
      '0.1',
      '65535',
      '65536',
      '2147483647',
      '2147483648',
      '-2147483648',
    ];
    numbers.push('4294967295', '4294967296', '9007199254740991', '9007199254740992', '9007199254740993');
    numbers.push('9223372036854775807', '18446744073709551616', '1e308', '1e309', '-1e309', '5e-324');
    const numberFields = [
      'pid',
      'tgid',
      'ppid',
      'uid',
      'cgroup_id',
      'target_pid',
      'target_uid',
      'target_gid',
    ];
    numberFields.push('dst_port', 'bytes', 'length', 'exit_code', 'flags', 'count');
    for (const field of numberFields) {
      for (const text of numbers) {
        const line = nativeLine({ ppid: 7, sweep: sent.length }).replace(/}$/, `,"${field}":${text}}`);
        // ppid itself is swept: such a line is claimed by its pid 4242 instead
        sent.push([
          field === 'ppid' ? line.replace('"pid":4242', '"pid":4242') : line,
          field,
          JSON.parse(text),
        ]);
      }
    }
    const answer = await ingest(daemon.url, sent.map(([line]) => line).join('\n'), 'native');
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
    const errors = answer.body['errors'] as { line: number; code: string }[];
    assert.equal(answer.body['errors_truncated'], errors.length < (answer.body['rejected'] as number));
    assert.equal((answer.body['accepted'] as number) + (answer.body['rejected'] as number), sent.length);

    const events = await pageAll(daemon.url, 'run=run-sweep');
    assert.equal(events.length, answer.body['accepted'], 'every accepted line is stored, in the run');
    const topLevel = new Set(['comm', 'cgroup_id', 'container_id', 'pid', 'tgid', 'ppid', 'uid']);
    for (const event of events) {
      assert.equal(rehash(event), event['hash'], JSON.stringify(event).slice(0, 300));
      const attrs = event['attrs'] as Record<string, unknown>;
      const [, field, value] = sent[attrs['sweep'] as number]!;
      const where = `${field} = ${JSON.stringify(value)}`;
      if (field === 'key') assert.ok(Object.keys(attrs).includes(value as string), where);
      else if (field === 'argv') assert.deepEqual(attrs['argv'], [value], where);
      else if (field === 'source') assert.equal(attrs['producer'], value, where);
      else if (field === 'cgroup_id' && typeof value === 'number')
        assert.equal(event[field], String(value), where);
      // -0 is stored as 0 (canonical JSON writes them alike)
      else if (topLevel.has(field))
        assert.ok(event[field] === value, `${where}: ${JSON.stringify(event[field])}`);
      else assert.ok(attrs[field] === value, `${where}: ${JSON.stringify(attrs[field])}`);
    }
    // every control character in the plain string fields is kept: only an address refuses them
    for (const field of stringFields) {
      const kept = events.filter((event) => {
        const [, sweptField, value] = sent[(event['attrs'] as Record<string, number>)['sweep']!]!;
        return sweptField === field && typeof value === 'string';
      });
      assert.equal(kept.length, characters.length, `${field} keeps every character`);
    }
  });
});
