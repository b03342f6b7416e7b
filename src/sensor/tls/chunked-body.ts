/**
 * A body in HTTP/1.1 chunked transfer coding (RFC 9112 section 7.1), decoded as its bytes arrive in
 * pieces of any size: size lines, chunk data, and the trailer that ends it.
 */

/** Longest size or trailer line accepted: longer ones are not HTTP. */
const maxLineBytes = 4096;

export interface ChunkedStep {
  /** Bytes of the input read; the rest (after the body's end) belongs to the next message. */
  consumed: number;
  /** Decoded body bytes, views of the input. */
  data: Uint8Array[];
  done: boolean;
}

export class ChunkedBody {
  private state: 'size' | 'data' | 'data_end' | 'trailer' = 'size';
  private line = '';
  private left = 0;

  /** How many body bytes the current chunk still owes: missing plaintext can be skipped only inside it. */
  get dataLeft(): number {
    return this.state === 'data' ? this.left : 0;
  }

  /** Skips `bytes` of chunk data that were never captured; false when they do not fall inside a chunk. */
  skip(bytes: number): boolean {
    if (this.state !== 'data' || bytes > this.left) return false;
    this.left -= bytes;
    if (this.left === 0) this.state = 'data_end';
    return true;
  }

  /** Reads `input` from its start; throws an Error for input that is not chunked coding. */
  feed(input: Uint8Array): ChunkedStep {
    const data: Uint8Array[] = [];
    let at = 0;
    while (at < input.length) {
      if (this.state === 'data') {
        const take = Math.min(this.left, input.length - at);
        data.push(input.subarray(at, at + take));
        at += take;
        this.left -= take;
        if (this.left === 0) this.state = 'data_end';
        continue;
      }
      const end = input.indexOf(0x0a, at); // LF ends a line (CRLF, or a bare LF some senders use)
      const piece = Buffer.from(input.subarray(at, end === -1 ? input.length : end)).toString('latin1');
      this.line += piece;
      if (this.line.length > maxLineBytes) throw new Error('a chunked body line is over 4096 bytes');
      if (end === -1) return { consumed: input.length, data, done: false };
      at = end + 1;
      const line = this.line.replace(/\r$/, '');
      this.line = '';
      if (this.lineEnds(line)) return { consumed: at, data, done: true };
    }
    return { consumed: at, data, done: false };
  }

  /** Takes one complete line; true when it ends the body. */
  private lineEnds(line: string): boolean {
    switch (this.state) {
      case 'size': {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (size === null) throw new Error(`not a chunk size line: ${JSON.stringify(line.slice(0, 32))}`);
        this.left = parseInt(size[1]!, 16);
        this.state = this.left === 0 ? 'trailer' : 'data';
        return false;
      }
      case 'data_end':
        if (line !== '') throw new Error('chunk data is longer than its size says');
        this.state = 'size';
        return false;
      default: // trailer fields, until the blank line that ends the body
        return line === '';
    }
  }
}
