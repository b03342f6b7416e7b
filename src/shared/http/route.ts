/**
 * What a route handler sees and returns. Handlers live in their domain's folder (`*.route.ts`),
 * built by a factory that takes what they need; the daemon wires them to the endpoint list.
 */
import type { HttpReply } from './http-reply.js';

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
}

export type RouteHandler = (request: RouteRequest) => HttpReply | Promise<HttpReply>;
