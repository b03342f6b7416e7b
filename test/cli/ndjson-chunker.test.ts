import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { chunkNdjson, type NdjsonChunk } from '../../src/cli/ndjson-chunker.js';

/** Feeds `input` in pieces of the given sizes (cycled) and collects the chunks. */
async function chunksOf(
  input: string,
  chunkBytes: number,
  pieceSizes: number[] = [input.length],
): Promise<NdjsonChunk[]> {
  const bytes = Buffer.from(input);
  const pieces: Uint8Array[] = [];
  for (let at = 0, turn = 0; at < bytes.length; turn++) {
    const size = Math.max(1, pieceSizes[turn % pieceSizes.length]!);
    pieces.push(new Uint8Array(bytes.subarray(at, at + size)));
    at += size;
  }
  const chunks: NdjsonChunk[] = [];
  for await (const chunk of chunkNdjson(Readable.from(pieces), chunkBytes)) chunks.push(chunk);
  return chunks;
}

/** Lines as the daemon counts them: a last line without newline counts. */
function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Checks every promise of chunkNdjson against the input. */
function assertChunking(input: string, chunkBytes: number, chunks: NdjsonChunk[]): void {
  assert.equal(
    Buffer.concat(chunks.map((chunk) => chunk.bytes)).toString(),
    input,
    'chunks rebuild the input',
  );
  let nextLine = 1;
  chunks.forEach((chunk, index) => {
    const text = chunk.bytes.toString();
    assert.equal(chunk.index, index);
    assert.equal(chunk.firstLine, nextLine);
    assert.equal(chunk.lines, countLines(text), `lines of chunk ${index}`);
    assert.ok(chunk.bytes.length > 0);
    if (index < chunks.length - 1) assert.ok(text.endsWith('\n'), `chunk ${index} ends at a line end`);
    if (chunk.lines > 1) assert.ok(chunk.bytes.length <= chunkBytes, `chunk ${index} fits`);
    const next = chunks[index + 1];
    if (next !== undefined) {
      // a chunk is cut only when the next line would not fit
      const firstNextLine = next.bytes.subarray(0, next.bytes.indexOf(10) + 1 || next.bytes.length);
      assert.ok(
        chunk.bytes.length + firstNextLine.length > chunkBytes,
        `chunk ${index} is as full as allowed`,
      );
    }
    nextLine += chunk.lines;
  });
  assert.equal(nextLine - 1, countLines(input));
}

describe('chunkNdjson', function () {
  it('cuts at line ends with exact line numbers when lines fill a chunk exactly', async function () {
    const chunks = await chunksOf('abc\n'.repeat(5), 8);
    assert.deepEqual(
      chunks.map(({ firstLine, lines, bytes }) => [firstLine, lines, bytes.length]),
      [
        [1, 2, 8],
        [3, 2, 8],
        [5, 1, 4],
      ],
    );
  });

  it('sends a line longer than the chunk alone when it meets one', async function () {
    const input = 'a\n' + 'x'.repeat(50) + '\nb\nc\n';
    const chunks = await chunksOf(input, 10, [3]);
    assert.deepEqual(
      chunks.map((chunk) => chunk.bytes.toString()),
      ['a\n', 'x'.repeat(50) + '\n', 'b\nc\n'],
    );
  });

  it('counts a last line without a newline and keeps it off a full chunk', async function () {
    const chunks = await chunksOf('aaaa\nbbbb\ncccccc', 10);
    assert.deepEqual(
      chunks.map(({ lines, bytes }) => [lines, bytes.toString()]),
      [
        [2, 'aaaa\nbbbb\n'],
        [1, 'cccccc'],
      ],
    );
  });

  it('yields nothing when the input is empty', async function () {
    assert.deepEqual(await chunksOf('', 10), []);
  });

  it('keeps every promise when inputs, chunk sizes and read sizes are random', async function () {
    let seed = 42;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: random(40) }, () => 'y'.repeat(random(random(5) === 0 ? 80 : 12)));
      const input = lines.join('\n') + (random(2) === 0 ? '\n' : '');
      const chunkBytes = 1 + random(40);
      const pieceSizes = Array.from({ length: 1 + random(4) }, () => 1 + random(30));
      assertChunking(input, chunkBytes, await chunksOf(input, chunkBytes, pieceSizes));
    }
  });
});
