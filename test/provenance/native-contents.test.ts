import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { SliceRows } from '../../src/ingest/slice-rows.js';
import { nativeContents } from '../../src/provenance/batch-hash.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { typeCode } from '../../src/model/codes.js';
import { attrsInContent, canonicalContent } from '../../src/telemetry/event-hash.js';
import { eventTypes, type EventType, type ParsedEvent } from '../../src/model/event.js';
import type { ParseResult } from '../../src/telemetry/parse-result.js';

const identity = '"timestamp":"2026-01-01T00:00:01.5Z","pid":10,"tgid":10,"ppid":1,"uid":0';

/** Native lines the addon writes exactly: escapes, Unicode, nesting, every top-level field's forms. */
const builtLines = [
  `{"event_type":"execve",${identity},"comm":"sh","path":"/bin/sh","argv":["sh","-c","echo \\"hi\\" \\\\ there"],"cwd":"/tmp"}`,
  `{"event_type":"file_write",${identity},"path":"/tmp/a\\"b\\\\c\\/d\\u0041\\n\\t\\u001f\\u007f\\b\\f\\r","bytes":0}`,
  `{"event_type":"file_write",${identity},"path":"/tmp/ü😀\u2028\u00a0","note":"\\ud83d\\ude00 \\u2028 \\u00e9"}`,
  `{"event_type":"open",${identity},"comm":"","container_id":"","cgroup_id":"","path":"/etc/hosts","flags":"O_RDONLY"}`,
  `{"event_type":"file_open","timestamp":"2026-01-01T00:00:02Z","pid":null,"tgid":0,"ppid":4294967295,"uid":null,"cgroup_id":0,"path":"/x"}`,
  `{"type":"file_open",${identity},"cgroup_id":18446744,"container_id":"docker://abc","path":"/x"}`,
  `{"event_type":"file_open",${identity},"cgroup_id":"/sys/fs/cgroup/a\\u0062c","path":"/x"}`,
  `{"event_type":"dns","time":"2026-01-01T00:00:03Z","timestamp":"2026-01-01T00:00:03\\u005a","query":"example.org","source":"agent"}`,
  `{"event_type":"dns_query","time":null,"timestamp":"2026-01-01T00:00:03Z","query":"a","source":null}`,
  `{"event_type":"dns_query",${identity},"query":"a","source":""}`,
  `{"event_type":"file_open",${identity},"path":"/root/.ssh/id_rsa","flags":"O_RDONLY"}`,
  `{"event_type":"connect",${identity},"dst_ip":"169.254.169.254","dst_port":80}`,
  `{"event_type":"network_connect",${identity},"dst_ip":"10.1.2.3","dst_port":5432,"protocol":"tcp"}`,
  `{"event_type":"tls_write",${identity},"http":{"z":1,"a":[{"y":true,"b":false},[],{}],"m":null,"-n":-42},"data":"GET /"}`,
  `{"event_type":"file_write",${identity},"10":"ten","9":"nine","k\\u0065y":"escaped key","path":"/p"}`,
  ` { "event_type" : "file_write" ,\t"timestamp":"2026-01-01T00:00:04Z"\r, "path" : "/spaced" , "bytes" : 12 } `,
  `{"event_type":"setuid",${identity},"target_uid":0}`,
  `{"event_type":"ptrace",${identity},"target_pid":4242,"request":"PTRACE_ATTACH"}`,
  `{"event_type":"execve",${identity},"login_uid":1000,"comm":"sudo"}`,
  `{"event_type":"execve",${identity},"login_uid":null,"comm":"cron"}`,
  `{"event_type":"execve","login_uid":4294967295,${identity}}`,
];

/** Native lines JavaScript accepts that the addon leaves to it: numbers, keys and shapes it does not write. */
const refusedLines = [
  `{"event_type":"file_write",${identity},"path":"/p","ratio":0.5}`,
  `{"event_type":"file_write",${identity},"path":"/p","big":1e3}`,
  `{"event_type":"file_write",${identity},"path":"/p","zero":-0}`,
  `{"event_type":"file_write",${identity},"path":"/p","long":1234567890123456}`,
  `{"event_type":"file_write",${identity},"path":"/p","ключ":1}`,
  `{"event_type":"file_write",${identity},"path":"/p","__proto__":{"x":1}}`,
  `{"event_type":"file_write",${identity},"path":"/p","a":1,"a":2}`,
  `{"event_type":"file_write",${identity},"path":"/p","pid":11}`,
  `{"event_type":"file_write",${identity},"login_uid":1,"login_uid":2}`,
  `{"event_type":"file_write",${identity},"path":"/p","deep":${'['.repeat(40)}${']'.repeat(40)}}`,
  `{"event_type":"file_write","timestamp":"2026-01-01T00:00:01Z","pid":1e3,"path":"/p"}`,
  `{"event_type":"file_write","timestamp":"2026-01-01T00:00:01Z","cgroup_id":1e3,"path":"/p"}`,
  `{"event_type":"file_write","pid":1,"path":"/no-time"}`,
];

/** A body of the lines (BOM first, CRLF and LF ends, blank lines between), and which lines are refused. */
function corpus(): { body: Buffer; refusedIndexes: Set<number> } {
  const parts: string[] = [];
  const refused = new Set<number>();
  const all = [
    ...builtLines.map((line) => [line, false] as const),
    ...refusedLines.map((line) => [line, true] as const),
  ];
  all.forEach(([line, isRefused], i) => {
    if (isRefused) refused.add(i);
    parts.push(line + (i % 3 === 0 ? '\r\n' : '\n') + (i % 4 === 0 ? '\n  \n' : ''));
  });
  return {
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(parts.join(''))]),
    refusedIndexes: refused,
  };
}

function columnsOf(parsed: ParseResult): { types: Uint8Array; observed: Uint8Array; lines: Uint32Array } {
  return {
    types: Uint8Array.from(parsed.events.map((event) => typeCode(event.type))),
    observed: Uint8Array.from(
      parsed.events.map((event) =>
        event.attrs.observed_type === undefined ? 0 : typeCode(event.attrs.observed_type as EventType) + 1,
      ),
    ),
    lines: Uint32Array.from(parsed.nativeLines),
  };
}

/** The contents JavaScript writes for `events`, '\n'-terminated, in order. */
function jsContents(events: readonly ParsedEvent[]): Buffer {
  return Buffer.from(events.map((event) => canonicalContent(event) + '\n').join(''));
}

describe('native contents', function () {
  let dir = '';
  before(function () {
    if (nativeContents === null) this.skip(); // the addon is not built here: JavaScript writes every content
    dir = mkdtempSync(join(tmpdir(), 'provd-native-contents-'));
  });
  after(function () {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('parses every line of the corpus as an event, each numbered by its line in the slice', function () {
    const { body } = corpus();
    const parsed = parseNdjson(body, 'native', 1);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.events.length, builtLines.length + refusedLines.length);
    const lines = body.toString('utf8').split('\n');
    parsed.nativeLines.forEach((line, i) => {
      const text = lines[line - 1]!.replace(/^\ufeff/, '').trim();
      assert.equal(text, [...builtLines, ...refusedLines][i]!.trim());
    });
  });

  it('builds the content of each line exactly as canonicalContent, refusing only what it cannot write', function () {
    const { body, refusedIndexes } = corpus();
    const parsed = parseNdjson(body, 'native', 1);
    const { types, observed, lines } = columnsOf(parsed);
    const built = nativeContents!(body, lines, types, observed, eventTypes, Buffer.alloc(0), true);
    assert.equal(built.contents, null);
    assert.deepEqual(
      [...built.refused],
      [...refusedIndexes].sort((a, b) => a - b),
    );

    // the refused ones written in JavaScript, as fallback contents: every content is JavaScript's
    const fallbackLines = Uint32Array.from(lines, (line, i) => (refusedIndexes.has(i) ? 0 : line));
    const fallback = jsContents(parsed.events.filter((_event, i) => refusedIndexes.has(i)));
    const again = nativeContents!(body, fallbackLines, types, observed, eventTypes, fallback, true);
    assert.deepEqual([...again.refused], []);
    assert.equal(again.contents!.toString('utf8'), jsContents(parsed.events).toString('utf8'));
    parsed.events.forEach((event, i) =>
      assert.equal(
        again.attrsLength[i],
        refusedIndexes.has(i) ? 0 : attrsInContent(canonicalContent(event)).length,
        `attrs length of event ${i}`,
      ),
    );
  });

  it('builds the contents of the sample exports and real native telemetry as canonicalContent', function () {
    for (const file of ['native-ebpf-events.jsonl', 'supply-chain-exfil.jsonl', 'llm-causal-events.jsonl']) {
      const body = readFileSync(join(packageRoot, 'test', 'fixtures', file));
      const parsed = parseNdjson(body, 'auto', 1);
      const { types, observed, lines } = columnsOf(parsed);
      const fallback = jsContents(parsed.events.filter((_event, i) => lines[i] === 0));
      const built = nativeContents!(body, lines, types, observed, eventTypes, fallback, true);
      assert.deepEqual([...built.refused], [], file);
      assert.equal(built.contents!.toString('utf8'), jsContents(parsed.events).toString('utf8'), file);
    }
  });

  it('writes the same rows file and hashes from lines as from JavaScript contents, refused lines included', function () {
    const { body } = corpus();
    const parsed = parseNdjson(body, 'native', 1);
    const fromLines = new SliceRows(parsed.events.length);
    const fromJs = new SliceRows(parsed.events.length);
    parsed.events.forEach((event, i) => {
      const row = { event, match: undefined, judged: i % 2 === 0, unstorablePid: false };
      fromLines.add(i, { ...row, content: null, line: parsed.nativeLines[i]! });
      fromJs.add(i, { ...row, content: canonicalContent(event), line: 0 });
    });
    const linesFile = join(dir, 'lines.csv');
    const jsFile = join(dir, 'js.csv');
    assert.deepEqual(fromLines.write(linesFile, body), fromJs.writeInJs(jsFile));
    assert.equal(readFileSync(linesFile, 'utf8'), readFileSync(jsFile, 'utf8'));
    parsed.events.forEach((event, i) =>
      assert.equal(fromLines.attrsLength(i), attrsInContent(canonicalContent(event)).length),
    );
  });

  it('refuses arguments of the wrong kind, lines out of order or past the slice, and missing fallbacks', function () {
    const body = Buffer.from(`${builtLines[0]}\n${builtLines[1]}\n`);
    const parsed = parseNdjson(body, 'native', 1);
    const { types, observed } = columnsOf(parsed);
    const call = (lines: Uint32Array, fallback = Buffer.alloc(0)) =>
      nativeContents!(body, lines, types, observed, eventTypes, fallback, true);
    assert.throws(() => call(Uint32Array.of(2, 1)), /out of order/);
    assert.throws(() => call(Uint32Array.of(1, 5)), /past the slice/);
    assert.throws(() => call(Uint32Array.of(1, 0)), /fewer fallback contents/);
    assert.throws(() => call(Uint32Array.of(1)), /differ in length/);
    assert.throws(
      () =>
        nativeContents!(
          body,
          Uint32Array.of(1, 2),
          Uint8Array.of(250, 0),
          observed,
          eventTypes,
          Buffer.alloc(0),
          true,
        ),
      /type code/,
    );
    assert.throws(
      () =>
        nativeContents!(
          body,
          new Uint8Array(2) as unknown as Uint32Array,
          types,
          observed,
          eventTypes,
          Buffer.alloc(0),
          true,
        ),
      TypeError,
    );
  });
});
