/**
 * The head of an HTTP/1.x message: its start line and the headers provd keeps. Credentials never
 * leave here: only the headers named in `keptHeaders` are kept.
 */

/** Headers kept on an event: what a reader needs to tell what was asked and answered, no credential. */
const keptHeaders = new Set([
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'user-agent',
  'server',
  'location',
  'x-request-id',
  'request-id',
  'anthropic-version',
  'openai-version',
  'x-model',
]);

export interface HttpHead {
  kind: 'request' | 'response';
  version: string;
  method?: string;
  /** The request target, as sent (a path, or a full URL through a proxy). */
  path?: string;
  status?: number;
  reason?: string;
  headers: Record<string, string>;
  /** Transfer-Encoding ends with chunked. */
  chunked: boolean;
  /** Content-Length, when given and valid. */
  contentLength: number | null;
}

const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/(1\.[01])$/;
const statusLine = /^HTTP\/(1\.[01]) (\d{3})(?: (.*))?$/;

/** Whether `bytes` can begin an HTTP/1.x message, as far as they go: used to find where one starts. */
export function startsLikeHttp1(bytes: Uint8Array): boolean {
  const start = Buffer.from(bytes.subarray(0, 16)).toString('latin1');
  if ('HTTP/1.'.startsWith(start) || start.startsWith('HTTP/1.')) return true;
  return /^[A-Z][A-Z-]{0,15}( |$)/.test(start) && !start.startsWith('PRI ');
}

/**
 * Why the first line of a head still arriving (`text` holds its end, CRLF) is no HTTP/1.x start
 * line; undefined while it is one, or while the line has not ended. Another line protocol inside
 * TLS (SMTP's `EHLO`, IMAP's `a1 LOGIN`) is told apart at its first line, not held until a head's
 * blank line that never comes.
 */
export function startLineRefusal(text: string): string | undefined {
  const end = text.indexOf('\r\n');
  if (end === -1) return undefined;
  const start = text.slice(0, end);
  return requestLine.test(start) || statusLine.test(start)
    ? undefined
    : `not an HTTP/1.x start line: ${JSON.stringify(start.slice(0, 64))}`;
}

/** The head in `text` (its lines, without the blank line that ends it), or why it is not one. */
export function parseHead(text: string): HttpHead | string {
  const lines = text.split('\r\n');
  const start = lines[0] ?? '';
  const request = requestLine.exec(start);
  const status = request === null ? statusLine.exec(start) : null;
  if (request === null && status === null) return startLineRefusal(`${start}\r\n`)!;
  const headers: Record<string, string> = {};
  let chunked = false;
  let contentLength: number | null = null;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `not a header line: ${JSON.stringify(line.slice(0, 64))}`;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
    if (name === 'content-length') contentLength = /^\d{1,15}$/.test(value) ? Number(value) : null;
    if (keptHeaders.has(name))
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  if (request !== null)
    return {
      kind: 'request',
      method: request[1]!,
      path: request[2]!,
      version: request[3]!,
      headers,
      chunked,
      contentLength,
    };
  return {
    kind: 'response',
    version: status![1]!,
    status: Number(status![2]),
    reason: status![3] ?? '',
    headers,
    chunked,
    contentLength,
  };
}

/** How a message's body ends: after a length, in chunks, when the connection closes, or right away. */
export type BodyFraming =
  | { type: 'length'; bytes: number }
  | { type: 'chunked' }
  | { type: 'close' }
  /** the connection stops speaking HTTP/1.x after this head (101 Switching Protocols, CONNECT) */
  | { type: 'switch' };

/** RFC 9112 section 6.3; `requestMethod` is the method of the request a response answers, when known. */
export function bodyFraming(head: HttpHead, requestMethod: string | undefined): BodyFraming {
  if (head.kind === 'response') {
    const status = head.status!;
    if (status === 101 || (requestMethod === 'CONNECT' && status >= 200 && status < 300))
      return { type: 'switch' };
    if ((status >= 100 && status < 200) || status === 204 || status === 304 || requestMethod === 'HEAD')
      return { type: 'length', bytes: 0 };
  }
  if (head.chunked) return { type: 'chunked' };
  if (head.contentLength !== null) return { type: 'length', bytes: head.contentLength };
  return head.kind === 'request' ? { type: 'length', bytes: 0 } : { type: 'close' };
}
