/** What a route answers, and the JSON bodies every route shares: data and errors. */
import { wireErrorCodes, type WireErrorCode } from '../errors.js';

/** A complete HTTP answer; the server adds x-request-id, and a JSON content-type unless `headers` name one. */
export interface HttpReply {
  status: number;
  body: Uint8Array | string;
  headers?: Record<string, string>;
  /** Close the connection after this answer (the rest of the request body was not read). */
  close?: boolean;
}

/** A 2xx/503 answer whose body is the given value as JSON. */
export function jsonReply(status: number, value: unknown): HttpReply {
  return { status, body: JSON.stringify(value) };
}

/** The error body of every endpoint (docs/contract.md, HTTP conventions). */
export interface ErrorBody {
  schema_version: 'provenance.error/v1';
  error: {
    code: WireErrorCode;
    /** Safe to show: it names the failed parameter or step; details stay in the daemon's log. */
    message: string;
  };
}

/**
 * Retry-After of the codes that mean "later": a full ingest queue drains within a second; a store
 * that cannot serve (full disk, failed device, timeout, shutdown) is checked again within seconds.
 */
const retryAfterSeconds: Partial<Record<WireErrorCode, string>> = { backpressure: '1', unavailable: '5' };

/** An ErrorBody answer with the status its code maps to. */
export function errorReply(
  code: WireErrorCode,
  message: string,
  headers?: Record<string, string>,
): HttpReply {
  const error: ErrorBody = { schema_version: 'provenance.error/v1', error: { code, message } };
  const body = JSON.stringify(error);
  // a client told to back off, or that the store cannot serve now, is told when to come back
  const retryAfter = retryAfterSeconds[code];
  const all = retryAfter === undefined ? headers : { 'retry-after': retryAfter, ...headers };
  return { status: wireErrorCodes[code], body, ...(all && { headers: all }) };
}

const reasons: Record<number, string> = {
  200: 'OK',
  202: 'Accepted',
  303: 'See Other',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** The status line uWS expects, e.g. "404 Not Found". */
export function statusLine(status: number): string {
  return `${status} ${reasons[status] ?? ''}`.trimEnd();
}
