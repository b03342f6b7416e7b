/**
 * Keeps web pages out of the daemon. A page can make a browser send requests to 127.0.0.1 without
 * reading the answers (simple requests: a form, an <img>, `fetch` with `text/plain`), and can read
 * them through DNS rebinding (its own name resolving to 127.0.0.1). Browsers mark both: a page's
 * request carries `Origin` (writes, CORS) or `Sec-Fetch-Site` (all of them, in every current
 * browser); a rebinding page's carries its own name in `Host`; a simple request's body has one of
 * three content types, or none. provd refuses every request another page made, as Docker's API,
 * Jupyter and Ollama do in their ways; CLIs, SDKs and curl send none of those marks. Its only page is
 * its own web view (views/web/), whose requests are same-origin and addressed to the daemon's own
 * loopback name and port: a rebinding page is same-origin too, but names its own host.
 */
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';

/** The headers the guard reads, as uWS gives them ('' when absent). */
export interface BrowserMarks {
  host: string;
  origin: string;
  secFetchSite: string;
  contentType: string;
}

/** What the daemon is: its bound port, and whether a token keeps unknown clients out already. */
export interface GuardContext {
  port: number;
  tokenConfigured: boolean;
}

/** The media types a body may be sent as, by the body type an endpoint declares. */
const acceptedBodyTypes: Readonly<Record<string, readonly string[]>> = {
  'application/json': ['application/json'],
  // NDJSON's registered-by-use names: Vector, Fluent Bit and Logstash send the first
  'application/x-ndjson': ['application/x-ndjson', 'application/ndjson', 'application/jsonl'],
};

/**
 * A 403 when a browser page sent the request (its Origin or Sec-Fetch-Site is not the daemon's own,
 * or, without a token, its Host is not a loopback name), else undefined. Checked before auth, on
 * every path, the health endpoints included: a rebinding page must not read them either.
 */
export function refusedBrowserRequest(marks: BrowserMarks, context: GuardContext): HttpReply | undefined {
  // `none`: the user typed the URL; `same-origin`: the daemon's own web view, checked below
  if (marks.secFetchSite !== '' && marks.secFetchSite !== 'none' && marks.secFetchSite !== 'same-origin') {
    return forbidden(
      `a web page's request (Sec-Fetch-Site: ${quoted(marks.secFetchSite)}) is refused: ` +
        'provd answers no page but its own web view',
    );
  }
  if (marks.origin !== '' && !isOwnOrigin(marks.origin, context.port)) {
    return forbidden(
      `a request from the web origin ${quoted(marks.origin)} is refused: ` +
        'provd answers no page but its own web view',
    );
  }
  // A rebinding page's requests are same-origin to it, token or not: only the daemon's own name and
  // port make them the web view's (a page on another name could read the view's answers).
  if (marks.secFetchSite === 'same-origin' && !isOwnHost(marks.host, context.port)) {
    return forbidden(
      `a same-origin request for Host ${quoted(marks.host)} is refused: provd's web view is served ` +
        `only at a loopback name on port ${context.port} (a page on another name may be rebinding its DNS)`,
    );
  }
  // With a token a rebinding page cannot authenticate, and a remote client names the host it knows.
  if (!context.tokenConfigured && marks.host !== '' && !isLoopbackName(hostOf(marks.host))) {
    return forbidden(
      `Host ${quoted(marks.host)} is not a loopback name: without --auth-token provd answers only requests ` +
        'addressed to localhost, 127.0.0.1 or [::1] (a page on another name may be rebinding its DNS)',
    );
  }
  return undefined;
}

/** A 415 when a body is not sent as the type the endpoint reads, else undefined. */
export function refusedContentType(contentType: string, bodyType: string): HttpReply | undefined {
  const accepted = acceptedBodyTypes[bodyType] ?? [bodyType];
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  const utf8 = charset === undefined || /^charset="?utf-8"?$/.test(charset);
  if (accepted.includes(mediaType) && utf8) return undefined;
  const sent = contentType === '' ? 'no Content-Type' : `Content-Type ${quoted(contentType)}`;
  return errorReply(
    'unsupported_media_type',
    `this endpoint reads ${accepted.join(' or ')} in UTF-8; the request has ${sent}`,
    { accept: accepted.join(', ') },
  );
}

/** True for `http://<loopback name>:<the daemon's port>`: the only origin the daemon has. */
function isOwnOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything unparsable
  }
  return url.protocol === 'http:' && url.port === String(port) && isLoopbackName(url.hostname);
}

/** True for `<loopback name>:<the daemon's port>` (a browser leaves out port 80). */
function isOwnHost(host: string, port: number): boolean {
  const name = hostOf(host);
  const rest = host.slice(name.length);
  const hostPort = rest === '' ? '80' : rest.startsWith(':') ? rest.slice(1) : '';
  return isLoopbackName(name) && hostPort === String(port);
}

/** The name part of a Host header: `[::1]:8574` -> `[::1]`, `localhost:8574` -> `localhost`. */
function hostOf(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return name.toLowerCase();
}

const loopbackV4 = /^127\.(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){2}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

/**
 * Loopback names a page cannot own: `localhost` and its subdomains (RFC 6761; browsers resolve them
 * to loopback themselves), 127.0.0.0/8 and ::1 (bracketed as in a URL, or not). Not 0.0.0.0, which
 * some browsers sent to loopback and a listener takes for every address.
 */
export function isLoopbackName(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower === 'localhost' ||
    lower.endsWith('.localhost') ||
    loopbackV4.test(lower) ||
    lower === '[::1]' ||
    lower === '::1'
  );
}

function forbidden(message: string): HttpReply {
  return errorReply('forbidden', message);
}

/** A header value shown in a message: JSON-quoted and cut, so it cannot forge the message's text. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
}
