/**
 * One request/response pair on a uWS connection. uWS invalidates the response object once the
 * client aborts, so every write goes through here: it answers at most once, never after an abort.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { statusLine, type HttpReply } from '../shared/http/http-reply.js';

/** Guards a uWS response: `send` is a no-op after an abort or a first answer. */
export class Exchange {
  private done = false;
  private abortListeners: (() => void)[] = [];

  constructor(
    private readonly res: HttpResponse,
    readonly requestId: string,
    private readonly onFinished: () => void,
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

  send(reply: HttpReply): void {
    if (this.done) return;
    this.finish();
    this.res.cork(() => {
      this.res.writeStatus(statusLine(reply.status));
      this.res.writeHeader('content-type', 'application/json; charset=utf-8');
      this.res.writeHeader('x-request-id', this.requestId);
      for (const [name, value] of Object.entries(reply.headers ?? {})) this.res.writeHeader(name, value);
      this.res.end(reply.body, reply.close === true);
    });
  }

  private finish(): void {
    this.done = true;
    this.onFinished();
  }
}
