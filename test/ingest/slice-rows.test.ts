import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { SliceRows } from '../../src/ingest/slice-rows.js';
import { writeRowsNative } from '../../src/provenance/batch-hash.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { buildCorrelations } from '../../src/telemetry/binding-index.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { attrsInContent, canonicalContent, hashEvent } from '../../src/telemetry/event-hash.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { useTempDir } from '../support/temp-dir.js';

/** Events whose strings hold every byte value, quotes, escapes, BOMs and astral characters. */
function hostileEvents(): ParsedEvent[] {
  const specials = [
    '\ufeff',
    '\u001e',
    '\u001e\u001e',
    '"',
    '\\',
    '\u2028',
    '😀',
    '\u{10ffff}',
    '\ufeff\ufeffx',
    '',
  ];
  const chars = [...Array.from({ length: 0x100 }, (_v, code) => String.fromCharCode(code)), ...specials];
  return chars.map((text, i) => ({
    type: i % 3 === 0 ? 'file_write' : 'execve',
    source: 'native_jsonl',
    time: i % 2 === 0 ? '2026-01-01T00:00:01Z' : '2026-01-01T00:00:01.123456789+02:00',
    timeNs: 1_767_225_601_000_000_000n + BigInt(i),
    pid: i % 5 === 0 ? null : i,
    tgid: i,
    ppid: 4_294_967_295,
    uid: i % 7 === 0 ? null : 0,
    loginUid: i % 3 === 0 ? null : 1000 + i,
    comm: text,
    cgroupId: i % 4 === 0 ? null : `${text}cg`,
    containerId: text === '' ? '' : `c${text}`,
    attrs: { [text]: text, path: `/tmp/${text}`, bytes: i % 2 === 0 ? i : 1.5, argv: [text, 'x'] },
  }));
}

describe('slice rows', function () {
  const dir = useTempDir('provd-slice-', { per: 'suite' });

  /** The rows of `events`, every third correlated, every fifth judged. */
  function slice(events: ParsedEvent[]): SliceRows {
    const binding = parseBindRequest({ run_id: 'run-"1', tool_call_id: 'tc,1', cgroup_id: '7' }, 1n);
    if (isBindRequestError(binding)) throw new Error(binding.message);
    const match = buildCorrelations(binding).cgroup;
    const rows = new SliceRows(events.length);
    events.forEach((event, i) => {
      const content = canonicalContent(event);
      const row = { event, content, line: 0, match: i % 3 === 0 ? match : undefined, judged: i % 5 === 0 };
      rows.add(i, { ...row, unstorablePid: i === 11 });
    });
    return rows;
  }

  for (const [name, events] of [
    ['hostile strings', hostileEvents()],
    [
      'the sample exports',
      [
        'native-ebpf-events.jsonl',
        'tetragon-docs-events.jsonl',
        'falco-risk-events.jsonl',
        'llm-causal-events.jsonl',
      ].flatMap(
        (file) => parseNdjson(readFileSync(join(packageRoot, 'test', 'fixtures', file)), 'auto', 1).events,
      ),
    ],
  ] as const) {
    it(`writes the same file natively as in JavaScript, hashing each event as hashEvent (${name})`, function () {
      const rows = slice([...events]);
      const jsFile = join(dir.path, `${name}-js.csv`);
      const jsDigests = rows.writeInJs(jsFile);
      events.forEach((event, i) =>
        assert.equal(
          `sha256:${jsDigests.toString('hex', i * 32, i * 32 + 32)}`,
          hashEvent(event, attrsInContent(canonicalContent(event))),
        ),
      );
      assert.equal(statSync(jsFile).mode & 0o777, 0o600);
      if (writeRowsNative === null) this.skip(); // the addon is not built here: only the JavaScript writer runs
      const nativeFile = join(dir.path, `${name}-native.csv`);
      const nativeDigests = rows.writeNatively(nativeFile);
      assert.deepEqual(nativeDigests, jsDigests);
      assert.equal(statSync(nativeFile).mode & 0o777, 0o600);
      assert.equal(readFileSync(nativeFile).toString('hex'), readFileSync(jsFile).toString('hex'));
    });
  }

  it('refuses columns of the wrong kind or length instead of writing a file', function () {
    if (writeRowsNative === null) this.skip();
    const file = join(dir.path, 'refused.csv');
    const columns = {
      type: new Uint8Array(1),
      source: new Uint8Array(1),
      timeNs: new BigInt64Array(1),
      flags: new Uint8Array(1),
      bytes: new Float64Array(1),
      correlation: new Uint32Array(1),
      correlations: ['\n'],
    };
    const content = Buffer.from(`${canonicalContent(hostileEvents()[65]!)}\n`);
    assert.throws(
      () => writeRowsNative!(file, content, { ...columns, bytes: new Float64Array(2) }),
      /length/,
    );
    assert.throws(
      () => writeRowsNative!(file, content, { ...columns, correlation: new Uint32Array([3]) }),
      /correlation/,
    );
    assert.throws(
      () => writeRowsNative!(file, Buffer.from('{"attrs":{}}\n'), columns),
      /not canonical content/,
    );
    assert.throws(() => writeRowsNative!(join(dir.path, 'no-dir', 'x.csv'), content, columns), /ENOENT/);
    assert.throws(() => statSync(file));
  });
});
