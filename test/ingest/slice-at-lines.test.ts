import assert from 'node:assert/strict';
import { sliceAtLines } from '../../src/ingest/ingest-router.js';

const owned = (slice: Uint8Array): boolean =>
  slice.byteOffset === 0 && slice.byteLength === slice.buffer.byteLength;

describe('sliceAtLines', function () {
  it('keeps every byte, ends each slice but the last at a newline, and owns each buffer', function () {
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 37)}"}`);
    const body = Buffer.from(lines.join('\n'));
    const slices = sliceAtLines(body, 1000);
    assert.ok(slices.length > 5);
    assert.deepEqual(Buffer.concat(slices), body);
    for (const slice of slices.slice(0, -1)) assert.equal(slice[slice.length - 1], 10);
    for (const slice of slices) assert.ok(owned(slice), 'each slice can be transferred alone');
  });

  it('keeps a line longer than the slice size whole', function () {
    const body = Buffer.from(`short\n${'y'.repeat(5000)}\nend`);
    const slices = sliceAtLines(body, 100).map((slice) => Buffer.from(slice).toString());
    assert.deepEqual(slices, ['short\n' + 'y'.repeat(5000) + '\n', 'end']);
  });

  it('copies a small body that shares its buffer (a pooled Buffer) instead of passing it through', function () {
    const pooled = Buffer.from('{"a":1}\n'); // small Buffers come from Node's shared pool
    const [slice] = sliceAtLines(pooled, 1024);
    assert.ok(owned(slice!));
    assert.notEqual(slice!.buffer, pooled.buffer);
  });
});
