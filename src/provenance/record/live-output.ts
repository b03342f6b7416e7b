/**
 * POST /v1/record with `Accept: application/x-ndjson`: the command's output as it comes, one line
 * per chunk ({"stream":"stdout","data":"..."}), then one last line {"record":{...}} (or the
 * provenance.error/v1 body when storing failed). Chunks are decoded as UTF-8 per stream, so a
 * character split between two reads is not mangled; the stored artifacts keep the exact bytes.
 */
import { StringDecoder } from 'node:string_decoder';
import { jsonReply, type HttpReply } from '../../shared/http/http-reply.js';
import type { ReplyStream } from '../../shared/http/reply-stream.js';
import type { RouteRequest } from '../../shared/http/route.js';
import type { RecordAnswer } from './record-answer.js';

export const ndjsonType = 'application/x-ndjson';

/** A chunk of the command's output, one line of a streamed record. */
export interface RecordLiveChunk {
  stream: 'stdout' | 'stderr';
  /** The bytes read, decoded as UTF-8 (malformed sequences replaced). */
  data: string;
}

/** The last line of a streamed record. */
export interface RecordStreamEnd {
  record: RecordAnswer;
  /** Bytes of output (UTF-8 as sent) a slow or gone client did not get; the stored artifacts keep theirs. */
  live_output_dropped_bytes: number;
}

export class LiveOutput {
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private dropped = 0;

  private constructor(private readonly stream: ReplyStream) {}

  /** How to open the stream once the command is about to run, or null when the client wants JSON. */
  static opener(request: RouteRequest): (() => LiveOutput) | null {
    const open = request.stream;
    if (open === undefined || !acceptsNdjson(request.headers['accept'] ?? '')) return null;
    return () => new LiveOutput(open(`${ndjsonType}; charset=utf-8`));
  }

  output(name: 'stdout' | 'stderr', chunk: Buffer): void {
    this.line(name, this.decoders[name].write(chunk));
  }

  /** The answer's last line, after what the decoders still held. */
  end(answer: RecordAnswer): HttpReply {
    this.line('stdout', this.decoders.stdout.end());
    this.line('stderr', this.decoders.stderr.end());
    const last: RecordStreamEnd = { record: answer, live_output_dropped_bytes: this.dropped };
    return jsonReply(200, last);
  }

  private line(name: 'stdout' | 'stderr', data: string): void {
    if (data === '') return;
    if (!this.stream.write(JSON.stringify({ stream: name, data }) + '\n'))
      this.dropped += Buffer.byteLength(data);
  }
}

/** Whether an Accept header names NDJSON (parameters and q-values aside). */
function acceptsNdjson(accept: string): boolean {
  return accept.split(',').some((range) => range.split(';')[0]!.trim().toLowerCase() === ndjsonType);
}
