/**
 * A Content-Length that uWebSockets.js 20.30 refuses. Its parser calls the request handler first and
 * only then reads the length: anything but 1 to 9 decimal digits makes it close the connection as
 * soon as the handler returns. So the answer has to be complete by then, and it has to leave the
 * socket before the close, which needs the padding below.
 */
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';

/**
 * uWS holds what a handler writes in its 16 KiB cork buffer and sends it after the handler returns;
 * a close at that point discards it. A single write larger than the buffer sends what is held and
 * itself at once, so the body is padded past it with trailing whitespace (still the same JSON).
 */
const corkBufferBytes = 16 * 1024;

/** The answer to a Content-Length uWS will refuse, or undefined when uWS accepts the header. */
export function refusedContentLength(declared: string, maxBodyBytes: number): HttpReply | undefined {
  if (declared === '' || /^\d{1,9}$/.test(declared)) return undefined;
  const reply = /^\d+$/.test(declared)
    ? errorReply('payload_too_large', `the body is over the limit of ${maxBodyBytes} bytes`)
    : errorReply('invalid_argument', 'Content-Length must be a decimal number of bytes');
  const body = String(reply.body);
  return { ...reply, body: body + '\n'.padEnd(corkBufferBytes + 1 - body.length, ' '), close: true };
}
