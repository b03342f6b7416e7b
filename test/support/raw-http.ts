/** Raw HTTP/1.1 over a `net` socket, for what fetch cannot send or would hide: bad bytes, HEAD, closes. */
import { connect, type Socket } from 'node:net';

/** What came back on a connection: every byte, and whether the server closed it. */
export interface RawOutcome {
  bytes: Buffer;
  closed: boolean;
}

/** Writes `data` on a fresh connection and collects what comes back until the server closes or `waitMs` pass. */
export function sendRaw(port: number, data: string | Buffer, waitMs: number): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ bytes: Buffer.concat(parts), closed: false });
    }, waitMs);
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(parts), closed: true });
    });
  });
}

/** One answer read off a kept-alive connection. */
export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** A kept-alive connection that sends one request at a time and reads its answer exactly. */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (part: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, part]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Bytes received but not read as part of an answer (a body after a HEAD answer would show here). */
  get unread(): Buffer {
    return this.buffered;
  }

  /** Writes `data` and reads nothing (a request left unfinished, or one read later by `ask`). */
  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Sends `head` and reads one answer; a HEAD answer is read as headers only (RFC 9110 9.3.2). */
  async ask(requestHead: string, isHead = false): Promise<RawAnswer> {
    this.socket.write(requestHead);
    let end: number;
    while ((end = this.buffered.indexOf('\r\n\r\n')) === -1) await this.more();
    const lines = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    this.buffered = this.buffered.subarray(end + 4);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = isHead ? 0 : Number(headers.get('content-length') ?? 0);
    while (this.buffered.length < length) await this.more();
    const body = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return { status, headers, body };
  }

  close(): void {
    this.socket.destroy();
  }

  private more(): Promise<void> {
    if (this.ended) return Promise.reject(new Error('the server closed the connection mid-answer'));
    return new Promise((resolve) => {
      this.waiting = () => {
        this.waiting = undefined;
        resolve();
      };
    });
  }
}
