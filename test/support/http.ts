/** A real HTTP client for the tests: fetch, with the JSON body parsed and checked against OpenAPI. */
import assert from 'node:assert/strict';
import { bodyTypeAt } from '../../src/daemon/endpoints.js';
import { assertValidResponse } from './openapi-validator.js';
import { request as httpRequest } from 'node:http';

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * Sends a request and checks the answer's body against the OpenAPI document before returning it. A
 * body goes with the type its endpoint reads, as every client of the daemon sends it, unless the
 * test names a Content-Type of its own.
 */
export async function request(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<JsonAnswer> {
  const method = init.method ?? 'GET';
  const headers = init.body === undefined ? init.headers : withBodyType(path, init.headers);
  const response = await fetch(baseUrl + path, { ...init, method, ...(headers && { headers }) });
  const text = await response.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  const pathOnly = path.split('?')[0] ?? path;
  assertValidResponse({ method, path: pathOnly, status: response.status, body });
  return { status: response.status, headers: response.headers, body };
}

/** `headers` with the type the endpoint at `path` reads its body as, unless they name one. */
export function withBodyType(path: string, headers: Record<string, string> = {}): Record<string, string> {
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) return headers;
  return { ...headers, 'content-type': bodyTypeAt(path) ?? 'application/json' };
}

/** Asserts each `[path, status, code]`: a GET of the path answers that status with that error code. */
export async function assertErrors(
  baseUrl: string,
  cases: readonly (readonly [path: string, status: number, code: string])[],
  headers: Record<string, string> = {},
): Promise<void> {
  for (const [path, status, code] of cases) {
    const answer = await request(baseUrl, path, { headers });
    assert.deepEqual(
      [answer.status, (answer.body['error'] as { code: string } | undefined)?.code],
      [status, code],
      path,
    );
  }
}

/**
 * Every item of a paged list (`key` holds a page's items), following next_cursor from the first
 * page: each page counts its items, and is full whenever more follow.
 */
export async function pageItems<Item>(
  baseUrl: string,
  path: string,
  key: string,
  limit: number,
  headers: Record<string, string> = {},
): Promise<Item[]> {
  const items: Item[] = [];
  const joiner = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  do {
    const page: string = `${path}${joiner}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await request(baseUrl, page, { headers });
    assert.equal(status, 200, JSON.stringify(body));
    const found = body[key] as Item[];
    assert.equal(body['count'], found.length, page);
    if (body['has_more'] === true) assert.equal(found.length, limit, page);
    assert.equal(body['has_more'], body['next_cursor'] !== null, page);
    items.push(...found);
    cursor = body['next_cursor'] as string | null;
  } while (cursor !== null);
  return items;
}

/**
 * Sends only the head of a POST declaring `contentLength` bytes, and waits for the answer: a body over
 * the limit is refused from its Content-Length, without the client having to send it.
 */
export function postHeadOnly(
  url: string,
  path: string,
  contentLength: number,
  contentType = 'application/x-ndjson',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, {
      method: 'POST',
      headers: { ...headers, 'content-type': contentType, 'content-length': String(contentLength) },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/**
 * Streams `body` with chunked transfer encoding (no Content-Length) and returns status and body. A
 * server that refuses it answers and closes mid-upload, so a write error after the answer is expected.
 */
export function postChunked(
  url: string,
  path: string,
  body: string | Buffer,
  contentType = 'application/x-ndjson',
): Promise<{ status: number; body: string }> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      url + path,
      { method: 'POST', headers: { 'content-type': contentType } },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunkBytes = 64 * 1024;
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes.length && !req.destroyed) {
        const chunk = bytes.subarray(sent, sent + chunkBytes);
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}
