/**
 * The soak's HTTP client: raw HTTP/1.1 over `net`, so a request can carry what fetch or node:http
 * would refuse to send (bytes outside ASCII in the path, broken framing, control characters in a
 * header), over one kept-alive connection per client, each answer read exactly and timed.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseAnswer, type HttpAnswer } from './http-answer.js';

/** One request. The target and header values are sent as latin1 bytes, exactly as given. */
export interface SoakRequest {
  method: string;
  /** The request target: path and query, already encoded (or not, when that is the point). */
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /** Bytes sent as they are instead of the request built from the fields above (framing fuzz). */
  raw?: Buffer;
}

/** What became of a request: its answer, or why none came, and how long it took. */
export type SoakOutcome = ({ answer: HttpAnswer } | { error: string }) & { ms: number };

/**
 * The bytes of `request` as sent to `port`: Host and Content-Length are added unless it names them.
 * (A saved request names the port `<port>`.)
 */
export function encodeRequest(request: SoakRequest, port: number | string): Buffer {
  if (request.raw !== undefined) return request.raw;
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  const head = [`${request.method} ${request.target} HTTP/1.1`];
  if (!names.has('host')) head.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
  if (request.body !== undefined && !names.has('content-length') && !names.has('transfer-encoding'))
    head.push(`Content-Length: ${request.body.length}`);
  return Buffer.concat([
    Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'),
    request.body ?? Buffer.alloc(0),
  ]);
}

/** A client of one daemon port: one connection kept alive between requests, reopened as needed. */
export class SoakClient {
  private socket: Socket | undefined;
  /** Bytes received and not yet read as an answer, in the order they came. */
  private parts: Buffer[] = [];
  private receivedBytes = 0;
  private ended = false;
  private wake: (() => void) | undefined;
  /** Answers read on the current connection; a reused connection may close under a new request. */
  private answered = 0;

  constructor(private readonly port: () => number) {}

  /**
   * Sends `request` and reads its answer within `timeoutMs`. A request that found its kept-alive
   * connection closed by the server before a byte of answer is sent once more on a fresh one, as
   * HTTP clients do.
   */
  async send(request: SoakRequest, timeoutMs: number): Promise<SoakOutcome> {
    const started = performance.now();
    let outcome = await this.attempt(request, timeoutMs);
    if ('error' in outcome && outcome.error === 'closed before an answer' && outcome.reused)
      outcome = await this.attempt(request, timeoutMs - (performance.now() - started));
    const ms = performance.now() - started;
    return 'answer' in outcome ? { answer: outcome.answer, ms } : { error: outcome.error, ms };
  }

  /** Closes the connection. */
  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private async attempt(
    request: SoakRequest,
    timeoutMs: number,
  ): Promise<{ answer: HttpAnswer } | { error: string; reused: boolean }> {
    const reused = this.socket !== undefined && this.answered > 0;
    let socket: Socket;
    try {
      socket = this.socket ?? (await this.open());
    } catch (error) {
      return { error: errorText(error), reused: false };
    }
    const deadline = performance.now() + Math.max(1, timeoutMs);
    socket.write(encodeRequest(request, this.port()));
    const isHead = request.method.toUpperCase() === 'HEAD';
    let waitFor = 1;
    for (;;) {
      let parsed: ReturnType<typeof parseAnswer>;
      try {
        parsed =
          this.receivedBytes >= waitFor || this.ended
            ? parseAnswer(this.joined(), this.ended, isHead)
            : undefined;
      } catch (error) {
        this.close();
        return { error: errorText(error), reused };
      }
      if (parsed !== undefined && 'answer' in parsed) {
        const rest = this.joined().subarray(parsed.used);
        this.parts = rest.length === 0 ? [] : [rest];
        this.receivedBytes = rest.length;
        this.answered++;
        if (parsed.answer.closes || this.ended) this.close();
        return { answer: parsed.answer };
      }
      waitFor = parsed === undefined ? this.receivedBytes + 1 : parsed.waitFor;
      if (this.ended) {
        const got = this.receivedBytes;
        this.close();
        return { error: got === 0 ? 'closed before an answer' : `closed after ${got} bytes`, reused };
      }
      const left = deadline - performance.now();
      if (left <= 0 || !(await this.more(left))) {
        this.close();
        return { error: `no answer within ${Math.round(timeoutMs)} ms`, reused };
      }
    }
  }

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.port(), '127.0.0.1');
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        this.socket = socket;
        this.parts = [];
        this.receivedBytes = 0;
        this.ended = false;
        this.answered = 0;
        socket.on('data', (part: Buffer) => {
          if (this.socket !== socket) return;
          this.parts.push(part);
          this.receivedBytes += part.length;
          this.wake?.();
        });
        const end = (): void => {
          if (this.socket !== socket) return;
          this.ended = true;
          this.wake?.();
        };
        socket.on('end', end);
        socket.on('close', end);
        socket.on('error', end);
        resolve(socket);
      });
    });
  }

  /** Every byte received and not yet read, as one buffer. */
  private joined(): Buffer {
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.receivedBytes)];
    return this.parts[0] ?? Buffer.alloc(0);
  }

  /** Waits for more bytes or the close; false when `ms` pass first. */
  private more(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
