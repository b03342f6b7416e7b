/**
 * Clients that are slow on purpose, over raw sockets: a reader that asks for a large answer and
 * then reads it a byte at a time, or not at all, and a writer that sends its body a few bytes at a
 * time, or stops halfway. Each runs until told to stop and reports what it saw.
 */
import { connect, type Socket } from 'node:net';
import { parseAnswer } from './http-answer.js';
import { encodeRequest, type SoakRequest } from './soak-client.js';

/** What a slow peer saw by the time it stopped. */
export interface SlowOutcome {
  /** The answer's status, when a whole answer arrived. */
  status: number | null;
  bytesRead: number;
  /** The server closed the connection. */
  closed: boolean;
}

/** A slow peer in progress: `stop` ends it and resolves with what it saw. */
export interface SlowPeer {
  stop(): Promise<SlowOutcome>;
}

function open(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a reset is an outcome here, seen as `closed`
  return socket;
}

/**
 * Sends `request` and reads the answer `bytesPerTick` bytes every `tickMs` (0 bytes: never reads;
 * the kernel's buffers fill and the server holds the rest).
 */
export function slowReader(port: number, request: SoakRequest, bytesPerTick: number, tickMs = 50): SlowPeer {
  const socket = open(port);
  const parts: Buffer[] = [];
  let closed = false;
  socket.pause();
  socket.on('close', () => (closed = true));
  socket.on('connect', () => socket.write(encodeRequest(request, port)));
  const timer =
    bytesPerTick === 0
      ? undefined
      : setInterval(() => {
          const chunk = socket.read(bytesPerTick) as Buffer | null;
          if (chunk !== null) parts.push(chunk);
        }, tickMs);
  return {
    stop: () => {
      if (timer !== undefined) clearInterval(timer);
      const bytes = Buffer.concat(parts);
      const parsed = closed || bytes.length > 0 ? safeParse(bytes, closed) : undefined;
      socket.destroy();
      return Promise.resolve({ status: parsed ?? null, bytesRead: bytes.length, closed });
    },
  };
}

/**
 * Sends the head of `request`, then its body `bytesPerTick` bytes every `tickMs`; with `stallAt`,
 * stops sending after that many body bytes. Resolves `stop` with the answer, if one came.
 */
export function slowWriter(
  port: number,
  request: SoakRequest,
  bytesPerTick: number,
  tickMs: number,
  stallAt?: number,
): SlowPeer {
  const socket = open(port);
  const whole = encodeRequest(request, port);
  const bodyLength = request.body?.length ?? 0;
  const headLength = whole.length - bodyLength;
  const parts: Buffer[] = [];
  let closed = false;
  let sent = 0;
  socket.on('data', (part: Buffer) => parts.push(part));
  socket.on('close', () => (closed = true));
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write(whole.subarray(0, headLength));
    timer = setInterval(() => {
      const limit = Math.min(bodyLength, stallAt ?? bodyLength);
      if (sent >= limit || closed) return clearInterval(timer);
      const next = Math.min(limit, sent + bytesPerTick);
      socket.write(whole.subarray(headLength + sent, headLength + next));
      sent = next;
    }, tickMs);
  });
  return {
    stop: () => {
      clearInterval(timer);
      const bytes = Buffer.concat(parts);
      const status = bytes.length > 0 ? safeParse(bytes, closed) : undefined;
      socket.destroy();
      return Promise.resolve({ status: status ?? null, bytesRead: bytes.length, closed });
    },
  };
}

/** The status of a complete answer in `bytes`, or undefined. */
function safeParse(bytes: Buffer, ended: boolean): number | undefined {
  try {
    const parsed = parseAnswer(bytes, ended, false);
    return parsed !== undefined && 'answer' in parsed ? parsed.answer.status : undefined;
  } catch {
    return undefined;
  }
}
