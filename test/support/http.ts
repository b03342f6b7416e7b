/** A real HTTP client for the tests: fetch, with the JSON body parsed and checked against OpenAPI. */
import { assertValidResponse } from './openapi-validator.js';

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Sends a request and checks the answer's body against the OpenAPI document before returning it. */
export async function request(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<JsonAnswer> {
  const method = init.method ?? 'GET';
  const response = await fetch(baseUrl + path, { ...init, method });
  const text = await response.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  const pathOnly = path.split('?')[0] ?? path;
  assertValidResponse({ method, path: pathOnly, status: response.status, body });
  return { status: response.status, headers: response.headers, body };
}
