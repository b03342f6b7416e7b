/**
 * What a route handler sees and returns. Handlers live in their domain's folder (`*.route.ts`),
 * built by a factory that takes what they need; the daemon wires them to the endpoint list.
 */
import type { JsonObject } from '../schema/json-object.js';
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
  /**
   * Serves another endpoint of this daemon in-process, as this request's caller (its token, its
   * watched mark): how the MCP endpoint runs its tools. Absent where the server cannot (tests
   * calling handlers).
   */
  local?: LocalCall;
}

/** A request to another endpoint of the daemon: path with its query string, a JSON body for a POST. */
export interface LocalRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: JsonObject;
}

/** That endpoint's answer: its status, and its body parsed (undefined when it was not JSON). */
export interface LocalReply {
  status: number;
  body: unknown;
}

export type LocalCall = (request: LocalRequest) => Promise<LocalReply>;

export type RouteHandler = (request: RouteRequest) => HttpReply | Promise<HttpReply>;
