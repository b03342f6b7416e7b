/**
 * One output stream of a recorded command: its first bytes kept (up to a bound), every byte
 * counted and hashed, so a truncated artifact still says how much there was and what it hashed to.
 */
import { createHash, type Hash } from 'node:crypto';

/** What was captured of a stream. */
export interface CapturedOutput {
  /** The kept prefix. */
  content: Buffer;
  /** Bytes the stream carried in all. */
  size: number;
  truncated: boolean;
  /** `sha256:<hex>` of every byte the stream carried (equals the content's hash when not truncated). */
  streamHash: string;
}

/** Collects one stream within `maxBytes`. */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private size = 0;
  private readonly hash: Hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    const room = this.maxBytes - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  finish(): CapturedOutput {
    return {
      content: Buffer.concat(this.chunks, this.kept),
      size: this.size,
      truncated: this.size > this.kept,
      streamHash: 'sha256:' + this.hash.digest('hex'),
    };
  }
}
