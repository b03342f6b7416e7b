/**
 * Reads a request body on the main thread within two limits: the body size (413) and, for endpoints
 * that have one, a budget of bytes in memory across requests (429). Either refusal is answered the
 * moment it is known; the rest of the body is then read and dropped, never left unread on a closed
 * connection, so the client can finish writing and read the answer.
 */
import type { HttpResponse } from 'uWebSockets.js';
import type { BodyBudget } from '../shared/http/body-budget.js';
import type { HttpReply } from '../shared/http/http-reply.js';
import type { Exchange } from './exchange.js';

/** What one body is read against. */
export interface BodyLimits {
  maxBodyBytes: number;
  /** Content-Length as declared, or undefined for a chunked body. */
  declaredBytes: number | undefined;
  budget: BodyBudget | undefined;
  tooLarge: () => HttpReply;
  backpressure: (why: string) => HttpReply;
}

/**
 * The whole body, or undefined once the exchange was answered (a refusal) or aborted. Bytes
 * reserved in the budget are given back when the exchange finishes, whatever its end.
 */
export function readBody(
  res: HttpResponse,
  exchange: Exchange,
  limits: BodyLimits,
): Promise<Buffer | undefined> {
  const { maxBodyBytes, declaredBytes, budget } = limits;
  let reserved = 0;
  /** Undefined when the bytes are reserved, else why they are refused. */
  const reserve = (bytes: number): string | undefined => {
    const refusal = budget?.tryReserve(bytes, reserved);
    if (budget !== undefined && refusal === undefined) reserved += bytes;
    return refusal;
  };
  exchange.onFinish(() => budget?.release(reserved));

  return new Promise((resolve) => {
    const refuse = (reply: HttpReply): void => {
      exchange.send(reply);
      resolve(undefined);
    };
    exchange.onAbort(() => resolve(undefined));
    // With a Content-Length, the body is copied once into a buffer of its own (transferable as is),
    // made when its first bytes come: a declared length costs nothing until bytes back it.
    let whole: Buffer | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    // registered before any answer: uWS then keeps reading (and dropping) the rest of the body
    res.onData((chunk, isLast) => {
      if (exchange.finished) return;
      size += chunk.byteLength;
      if (size > maxBodyBytes) return refuse(limits.tooLarge());
      const refusal = reserve(chunk.byteLength);
      if (refusal !== undefined) return refuse(limits.backpressure(refusal));
      if (declaredBytes !== undefined) {
        whole ??= Buffer.allocUnsafeSlow(declaredBytes);
        Buffer.from(chunk).copy(whole, size - chunk.byteLength);
        if (isLast) resolve(whole);
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(chunk))); // copy: uWS reuses the chunk's memory
      if (isLast) resolve(Buffer.concat(chunks, size));
    });
  });
}
