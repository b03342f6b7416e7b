/** Cuts an NDJSON byte stream into request bodies that end at line ends, without holding the stream. */

/** One request body and where its lines sit in the whole input. */
export interface NdjsonChunk {
  /** 0-based position of the chunk in the input. */
  index: number;
  bytes: Buffer;
  /** Number of the chunk's first line in the whole input (1-based). */
  firstLine: number;
  /** Lines in the chunk, counted as the daemon counts them: a last line without `\n` is a line. */
  lines: number;
}

const newline = 10;

/**
 * Yields chunks of at most `chunkBytes`, each ending at a line end; a single line longer than that
 * is yielded alone. Reads `source` only as fast as chunks are taken, so memory stays near
 * `chunkBytes` plus one read buffer, whatever the input size.
 */
export async function* chunkNdjson(
  source: AsyncIterable<Uint8Array>,
  chunkBytes: number,
): AsyncGenerator<NdjsonChunk, void, undefined> {
  // offsets are in the whole stream; `pieces` hold the bytes [start, read)
  let pieces: Buffer[] = [];
  let start = 0;
  let read = 0;
  let lineEnd = 0; // just after the last newline seen
  let lines = 0; // complete lines in [start, lineEnd)
  let index = 0;
  let nextLine = 1;

  // Takes [start, end) out of `pieces` as a chunk of `count` lines.
  const cut = (end: number, count: number): NdjsonChunk => {
    const all = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, read - start);
    const length = end - start;
    // copy the rest, so a small tail does not keep the whole joined buffer alive
    pieces = end < read ? [Buffer.from(all.subarray(length))] : [];
    const chunk = { index: index++, bytes: all.subarray(0, length), firstLine: nextLine, lines: count };
    start = end;
    nextLine += count;
    lines = 0;
    return chunk;
  };

  for await (const data of source) {
    const piece = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const pieceStart = read;
    pieces.push(piece);
    read += piece.length;
    for (let at = piece.indexOf(newline); at !== -1; at = piece.indexOf(newline, at + 1)) {
      const end = pieceStart + at + 1;
      if (end - start > chunkBytes && lineEnd > start) yield cut(lineEnd, lines);
      lineEnd = end;
      lines++;
      if (lineEnd - start >= chunkBytes) yield cut(lineEnd, lines);
    }
  }
  if (read === start) return;
  // the last line may lack its newline: it still counts, and must not push a chunk over the size
  if (read > lineEnd && read - start > chunkBytes && lineEnd > start) yield cut(lineEnd, lines);
  yield cut(read, lines + (read > lineEnd ? 1 : 0));
}

/**
 * The chunks of `chunks`, or one empty chunk when the input holds no bytes: an empty input still
 * makes one request, so a daemon that is not there fails it instead of "ingesting" nothing.
 */
export async function* orEmptyChunk(
  chunks: AsyncGenerator<NdjsonChunk, void, undefined>,
): AsyncGenerator<NdjsonChunk, void, undefined> {
  let any = false;
  for await (const chunk of chunks) {
    any = true;
    yield chunk;
  }
  if (!any) yield { index: 0, bytes: Buffer.alloc(0), firstLine: 1, lines: 0 };
}
