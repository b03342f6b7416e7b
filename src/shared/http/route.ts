/**
 * What a route handler sees and returns. Handlers live in their domain's folder (`*.route.ts`),
 * built by a factory that takes what they need; the daemon wires them to the endpoint list.
 */
import type { HttpReply } from './http-reply.js';
import type { OpenReplyStream } from './reply-stream.js';

/** What a handler sees of the request: everything was read before it runs. */
export interface RouteRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request headers its endpoint declares, by lower-case name ('' when absent). */
  headers: Readonly<Record<string, string>>;
  body: Buffer | undefined;
  requestId: string;
  /** The request carries the configured token, or none is configured (public paths see either). */
  authenticated: boolean;
  /**
   * Starts a streamed 200 answer: the handler's reply then ends it as its last chunk (an error
   * reply too, as its JSON body). Absent where the server cannot stream (tests calling handlers).
   */
  stream?: OpenReplyStream;
}

export type RouteHandler = (request: RouteRequest) => HttpReply | Promise<HttpReply>;
