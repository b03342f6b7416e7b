/**
 * One direction of one TLS connection, read as HTTP/1.x: the plaintext of successive calls is cut
 * into messages (head, then a body framed by length, chunks or the connection's end). What cannot
 * be read as HTTP/1.x is reported, never guessed: the stream then waits for a call that starts a
 * message again.
 */
import { createHash, type Hash } from 'node:crypto';
import { ChunkedBody } from './chunked-body.js';
import type { TlsChunk } from './chunks.js';
import {
  bodyFraming,
  parseHead,
  startLineRefusal,
  startsLikeHttp1,
  type BodyFraming,
  type HttpHead,
} from './http1-head.js';

export interface StreamBounds {
  /** A head longer than this is not read as HTTP. */
  maxHeadBytes: number;
  /** Body bytes kept on an event; the hash and size cover the whole body. */
  maxBodyBytes: number;
}

/** The request a response answers: its connection's requests are answered in order (RFC 9112 9.3.2). */
export interface RequestLine {
  method: string;
  path: string;
  host: string | null;
}

/** A connection's requests not answered yet, shared by its two streams. */
export interface RequestQueue {
  push(request: RequestLine): void;
  shift(): RequestLine | undefined;
}

/** Where and when a message began: its first chunk. */
interface Origin {
  wallNs: bigint;
  identity: Uint8Array;
}

export interface HttpMessage extends Origin {
  head: HttpHead;
  request: RequestLine | null;
  /** Bytes of the message as sent: head, body and its chunk framing. */
  messageBytes: number;
  bodyBytes: number;
  /** Of the whole body; null when some of it was never captured. */
  bodySha256: string | null;
  /** The body's first bytes, up to maxBodyBytes. */
  body: Uint8Array;
  /** Every byte of the body was captured and its end seen. */
  bodyComplete: boolean;
  endedBy: 'length' | 'chunked' | 'close' | 'switch';
}

/** Plaintext of a stream that does not speak HTTP/1.x (HTTP/2, or after an upgrade), one chunk at a time. */
export interface OpaqueData extends Origin {
  protocol: 'http2' | 'switched' | 'unknown';
  bytes: number;
  sha256: string;
}

/**
 * What a stream could not turn into a message: `tls_unparsed` plaintext that is not HTTP/1.x (nothing
 * was lost: it was captured, and is not HTTP); `tls_uncaptured` a message whose plaintext was not all
 * captured (chunks the kernel ring dropped, bytes past the capture); `tls_evicted` a message the
 * reassembler let go at its bounds (idle, too many streams or bytes, a head past its bound).
 */
export type StreamLoss = 'tls_unparsed' | 'tls_uncaptured' | 'tls_evicted';

export type StreamOutput =
  { message: HttpMessage } | { opaque: OpaqueData } | { lost: StreamLoss; why: string };

type Phase = 'head' | 'body' | 'opaque' | 'resync';

export class Http1Stream {
  /** When the stream was last fed, wall clock. */
  lastFedNs = 0n;
  private phase: Phase = 'head';
  /** The seq the next chunk should carry; null before the first. */
  private nextSeq: number | null = null;
  private protocol: OpaqueData['protocol'] = 'unknown';
  private headBuffer: Uint8Array = new Uint8Array(0);
  private origin: Origin | null = null;
  private message: Omit<HttpMessage, 'endedBy' | 'bodySha256' | 'body'> | null = null;
  private framing: BodyFraming = { type: 'close' };
  private chunked: ChunkedBody | null = null;
  private lengthLeft = 0;
  private hash: Hash | null = null;
  private kept: Uint8Array[] = [];
  private keptBytes = 0;

  constructor(
    private readonly bounds: StreamBounds,
    private readonly requests: RequestQueue,
  ) {}

  /** Bytes the stream holds: a head not yet complete and the body kept so far. */
  get pendingBytes(): number {
    return this.headBuffer.length + this.keptBytes;
  }

  /** Whether a message is under way: ending the stream now would lose it. */
  get midMessage(): boolean {
    return this.headBuffer.length > 0 || this.phase === 'body';
  }

  /** Whether the stream speaks HTTP/2 (it began with the client's preface, or its connection did). */
  get http2(): boolean {
    return this.protocol === 'http2';
  }

  /**
   * Its connection speaks HTTP/2 (the other direction began with the client's preface): the peer's
   * frames are read as opaque HTTP/2 data, not as HTTP/1.x that does not parse. Only between messages.
   */
  joinHttp2(): void {
    if (this.protocol !== 'unknown' || this.midMessage) return;
    this.protocol = 'http2';
    this.reset('opaque');
  }

  feed(chunk: TlsChunk, out: StreamOutput[]): void {
    this.lastFedNs = chunk.wallNs;
    // a hole in the numbers: the kernel ring had no room for those chunks (it counted them)
    if (this.nextSeq !== null && chunk.seq > this.nextSeq) this.lostChunks(chunk.seq - this.nextSeq, out);
    this.nextSeq = chunk.seq + 1; // lower than expected: the kernel side started the stream again
    if (this.phase === 'resync') {
      if (chunk.offset !== 0 || !startsLikeHttp1(chunk.data)) return; // still not where a message starts
      this.phase = 'head';
    }
    if (this.phase === 'opaque') {
      this.opaque(chunk, chunk.data, out);
      return;
    }
    let data: Uint8Array = chunk.data;
    while (data.length > 0 && (this.phase === 'head' || this.phase === 'body')) {
      data = this.phase === 'head' ? this.readHead(chunk, data, out) : this.readBody(data, out);
    }
    // a head may switch the stream away from HTTP/1.x (TS narrowed phase before the calls above)
    if ((this.phase as Phase) === 'opaque' && data.length > 0) this.opaque(chunk, data, out);
    if (chunk.missing > 0) this.skipMissing(chunk.missing, out);
  }

  /** Chunks the kernel dropped: the message under way is lost, and the stream waits for the next. */
  private lostChunks(chunks: number, out: StreamOutput[]): void {
    if (this.phase === 'opaque') return; // opaque chunks stand alone
    if (this.midMessage)
      this.desync(
        'tls_uncaptured',
        `${chunks} chunks of plaintext were dropped in the kernel (its ring was full)`,
        out,
      );
    else this.reset('resync');
  }

  /** The stream ends (idle, evicted, or the sensor stops): a body that runs to the end is complete. */
  end(why: string, out: StreamOutput[]): void {
    if (this.phase === 'body' && this.framing.type === 'close') this.finish('close', out);
    else if (this.midMessage) out.push({ lost: 'tls_evicted', why });
    this.reset('head');
  }

  /** Reads head bytes from `data`; returns what follows the head. */
  private readHead(chunk: TlsChunk, given: Uint8Array, out: StreamOutput[]): Uint8Array {
    let data: Uint8Array = given;
    if (this.headBuffer.length === 0) {
      let skip = 0;
      while (skip < data.length && (data[skip] === 0x0d || data[skip] === 0x0a)) skip++; // RFC 9112 2.2
      data = data.subarray(skip);
      if (data.length === 0) return data;
      if (!startsLikeHttp1(data)) {
        if (Buffer.from(data.subarray(0, 4)).toString('latin1') === 'PRI ') {
          this.protocol = 'http2';
          this.phase = 'opaque';
          return data;
        }
        this.desync('tls_unparsed', 'its plaintext does not start an HTTP/1.x message', out);
        return new Uint8Array(0);
      }
      this.origin = { wallNs: chunk.wallNs, identity: chunk.identity };
    }
    const searchFrom = Math.max(0, this.headBuffer.length - 3);
    // a head that starts in this chunk is searched in place: most are whole in one call
    const fresh = this.headBuffer.length === 0;
    const buffered = fresh
      ? Buffer.from(data.buffer, data.byteOffset, data.length)
      : concat(this.headBuffer, data);
    const end = buffered.indexOf('\r\n\r\n', searchFrom);
    if (end === -1) {
      // the start line ended and is not HTTP's: another protocol, told now, not at the idle bound
      const refusal = startLineRefusal(Buffer.from(buffered.subarray(0, 1024)).toString('latin1'));
      if (refusal !== undefined) this.desync('tls_unparsed', refusal, out);
      else if (buffered.length > this.bounds.maxHeadBytes)
        this.desync('tls_evicted', `a head over ${this.bounds.maxHeadBytes} bytes`, out);
      else this.headBuffer = fresh ? Buffer.from(buffered) : buffered; // a copy: the chunk's bytes belong to its batch
      return new Uint8Array(0);
    }
    const rest = data.subarray(end + 4 - this.headBuffer.length);
    this.headBuffer = new Uint8Array(0);
    const head = parseHead(Buffer.from(buffered.subarray(0, end)).toString('latin1'));
    if (typeof head === 'string') {
      this.desync('tls_unparsed', head, out);
      return new Uint8Array(0);
    }
    this.startBody(head, end + 4, out);
    return rest;
  }

  private startBody(head: HttpHead, headBytes: number, out: StreamOutput[]): void {
    let request: RequestLine | null = null;
    if (head.kind === 'request')
      this.requests.push({ method: head.method!, path: head.path!, host: head.headers['host'] ?? null });
    else if (head.status! >= 200 || head.status === 101) request = this.requests.shift() ?? null;
    this.message = {
      ...this.origin!,
      head,
      request,
      messageBytes: headBytes,
      bodyBytes: 0,
      bodyComplete: true,
    };
    this.framing = bodyFraming(head, request?.method);
    this.hash = createHash('sha256');
    if (this.framing.type === 'switch') {
      this.finish('switch', out);
      this.protocol = 'switched';
      this.phase = 'opaque';
    } else if (this.framing.type === 'length' && this.framing.bytes === 0) this.finish('length', out);
    else {
      this.phase = 'body';
      this.lengthLeft = this.framing.type === 'length' ? this.framing.bytes : 0;
      this.chunked = this.framing.type === 'chunked' ? new ChunkedBody() : null;
    }
  }

  /** Reads body bytes from `data`; returns what follows the body. */
  private readBody(data: Uint8Array, out: StreamOutput[]): Uint8Array {
    if (this.framing.type === 'length') {
      const take = Math.min(this.lengthLeft, data.length);
      this.addBody(data.subarray(0, take), take);
      this.lengthLeft -= take;
      if (this.lengthLeft === 0) this.finish('length', out);
      return data.subarray(take);
    }
    if (this.chunked !== null) {
      try {
        const step = this.chunked.feed(data);
        for (const piece of step.data) this.addBody(piece, 0);
        this.message!.messageBytes += step.consumed;
        if (step.done) this.finish('chunked', out);
        return data.subarray(step.consumed);
      } catch (error) {
        this.desync('tls_unparsed', (error as Error).message, out);
        return new Uint8Array(0);
      }
    }
    this.addBody(data, data.length); // to the connection's end
    return new Uint8Array(0);
  }

  /** Body bytes; `wireBytes` of them count toward the message's size (chunk framing counts itself). */
  private addBody(piece: Uint8Array, wireBytes: number): void {
    const message = this.message!;
    message.bodyBytes += piece.length;
    message.messageBytes += wireBytes;
    this.hash?.update(piece);
    const room = this.bounds.maxBodyBytes - this.keptBytes;
    if (room > 0 && piece.length > 0) {
      const keep = new Uint8Array(piece.subarray(0, room)); // a copy: the chunk's bytes belong to its batch
      this.kept.push(keep);
      this.keptBytes += keep.length;
    }
  }

  /** Plaintext the sensor did not capture: inside a body it is counted and the hash given up; elsewhere the stream is lost. */
  private skipMissing(bytes: number, out: StreamOutput[]): void {
    const message = this.message;
    const inLength = this.phase === 'body' && this.framing.type === 'length' && bytes <= this.lengthLeft;
    const inChunk = this.phase === 'body' && this.chunked !== null && this.chunked.skip(bytes);
    const inClose = this.phase === 'body' && this.framing.type === 'close';
    if (message !== null && (inLength || inChunk || inClose)) {
      message.bodyBytes += bytes;
      message.messageBytes += bytes;
      message.bodyComplete = false;
      this.hash = null;
      if (inLength) {
        this.lengthLeft -= bytes;
        if (this.lengthLeft === 0) this.finish('length', out);
      }
    } else if (this.phase !== 'opaque' && this.phase !== 'resync') {
      this.desync('tls_uncaptured', `${bytes} bytes of plaintext were not captured outside a body`, out);
    }
  }

  private finish(endedBy: HttpMessage['endedBy'], out: StreamOutput[]): void {
    const message = this.message!;
    out.push({
      message: {
        ...message,
        endedBy,
        bodySha256: this.hash === null ? null : this.hash.digest('hex'),
        body: concat(...this.kept),
      },
    });
    this.reset('head');
  }

  private opaque(chunk: TlsChunk, data: Uint8Array, out: StreamOutput[]): void {
    const sha256 = createHash('sha256').update(data).digest('hex');
    const bytes = data.length + chunk.missing;
    out.push({
      opaque: { wallNs: chunk.wallNs, identity: chunk.identity, protocol: this.protocol, bytes, sha256 },
    });
  }

  /** The stream no longer reads as HTTP/1.x: what it held is reported as `kind`, and it waits for a new message. */
  private desync(kind: StreamLoss, why: string, out: StreamOutput[]): void {
    out.push({ lost: kind, why });
    this.reset('resync');
  }

  private reset(phase: Phase): void {
    this.phase = phase;
    this.headBuffer = new Uint8Array(0);
    this.origin = null;
    this.message = null;
    this.chunked = null;
    this.hash = null;
    this.kept = [];
    this.keptBytes = 0;
  }
}

/** A new array of `parts` one after another. */
function concat(...parts: Uint8Array[]): Buffer {
  return Buffer.concat(parts);
}
