/**
 * One request/response pair on a uWS connection. uWS invalidates the response object once the
 * client aborts, so every write goes through here: it answers at most once, never after an abort.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { statusLine, type HttpReply } from '../shared/http/http-reply.js';
import type { ReplyStream } from '../shared/http/reply-stream.js';

/**
 * uWS closes a kept-alive connection 8 to 12 s after its last answer (a 10 s timeout checked every
 * 4 s); a client that reuses it at that moment loses its request without an answer. Clients that
 * honour this hint (undici, fetch) retire the connection well before.
 */
const keepAliveHint = 'timeout=5';

/** Bytes a streamed answer may queue in uWS beyond what the client took; more are dropped, counted. */
const maxQueuedStreamBytes = 4 * 1024 * 1024;

/** Guards a uWS response: `send` is a no-op after an abort or a first answer. */
export class Exchange {
  private done = false;
  private stream: { queued: number; waiting: boolean } | null = null;
  private abortListeners: (() => void)[] = [];
  private finishListeners: (() => void)[] = [];

  constructor(
    private readonly res: HttpResponse,
    readonly requestId: string,
    private readonly onFinished: () => void,
    /** A HEAD request: the answer carries GET's headers and no body. */
    private readonly head = false,
  ) {
    // uWS requires onAborted before any asynchronous step; without it an abort terminates the process.
    res.onAborted(() => {
      if (this.done) return;
      this.finish();
      for (const listener of this.abortListeners) listener();
    });
  }

  get finished(): boolean {
    return this.done;
  }

  /** Runs `listener` if the client goes away before the answer. */
  onAbort(listener: () => void): void {
    this.abortListeners.push(listener);
  }

  /** Runs `listener` once the exchange is over: answered, or aborted by the client. */
  onFinish(listener: () => void): void {
    this.finishListeners.push(listener);
  }

  /** Sends status 200 and the headers now; chunks follow, and `send` ends the answer. */
  openStream(contentType: string): ReplyStream {
    if (this.stream !== null || this.done) throw new Error('a stream opens once, before the answer');
    const stream = { queued: 0, waiting: false };
    this.stream = stream;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(200));
      this.res.writeHeader('content-type', contentType);
      this.res.writeHeader('x-request-id', this.requestId);
      this.res.writeHeader('cache-control', 'no-store');
    });
    return { write: (text) => this.writeChunk(text) };
  }

  /** One chunk of a stream; while the client lags past the bound, chunks are dropped (false). */
  private writeChunk(text: string): boolean {
    const stream = this.stream!;
    if (this.done || stream.queued > maxQueuedStreamBytes) return false;
    let written = true;
    this.res.cork(() => {
      written = this.res.write(text);
    });
    if (written) return true;
    // uWS keeps what it could not send yet: counted until the socket drains
    stream.queued += Buffer.byteLength(text);
    if (stream.waiting) return true;
    stream.waiting = true;
    this.res.onWritable(() => {
      stream.queued = 0;
      stream.waiting = false;
      return true;
    });
    return true;
  }

  send(reply: HttpReply): void {
    if (this.done) return;
    this.finish();
    if (this.stream !== null) {
      // the final reply is the stream's last line, whatever its status
      const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
      return void this.res.cork(() => this.res.end(text.endsWith('\n') ? text : text + '\n'));
    }
    this.res.cork(() => {
      this.res.writeStatus(statusLine(reply.status));
      // JSON unless the reply names its own type (the web view's pages, GET /metrics)
      const headers = reply.headers;
      this.res.writeHeader('content-type', headers?.['content-type'] ?? 'application/json; charset=utf-8');
      this.res.writeHeader('x-request-id', this.requestId);
      if (headers !== undefined)
        for (const name in headers) if (name !== 'content-type') this.res.writeHeader(name, headers[name]!);
      if (reply.close !== true) this.res.writeHeader('keep-alive', keepAliveHint);
      if (!this.head) return void this.res.end(reply.body, reply.close === true);
      // uWS 20.30's endWithoutBody(length) leaves the response pending, and the connection's next
      // request is then refused; so GET's Content-Length goes in as our own header. Its close flag
      // would add a second Content-Length: the client is asked to close instead.
      this.res.writeHeader('content-length', String(byteLength(reply.body)));
      if (reply.close === true) this.res.writeHeader('connection', 'close');
      this.res.endWithoutBody();
    });
  }

  private finish(): void {
    this.done = true;
    this.onFinished();
    for (const listener of this.finishListeners) listener();
  }
}

function byteLength(body: Uint8Array | string): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}
