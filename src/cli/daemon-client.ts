/** How CLI commands reach the daemon: HTTP only, never the database. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Writable } from 'node:stream';
import { ProvdError } from '../shared/errors.js';
import { readTokenFile } from '../shared/auth-token.js';
import { answerTooLarge, maxJsonAnswerBytes, readAtMost } from './answer-limit.js';

export const defaultDaemonUrl = 'http://127.0.0.1:8574';
const requestTimeoutMs = 10_000;

/**
 * The daemon's base URL: `--url`, else `$PROVD_URL`, else the default listen address, without a
 * trailing slash. Every command checks it here, before any request: a value that is not an
 * http(s) base URL is PROVD_ERR_CONFIG_INVALID naming where it came from; only a well-formed URL
 * that does not answer is PROVD_ERR_CLI_UNREACHABLE.
 */
export function resolveDaemonUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const from = flag !== undefined ? '--url' : 'PROVD_URL';
  const text = flag ?? env['PROVD_URL'] ?? defaultDaemonUrl;
  const problem = urlProblem(text);
  if (problem !== undefined) {
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `${from} must be the daemon's http(s) base URL, like ${defaultDaemonUrl}; ${problem}, got "${text}"`,
    );
  }
  return text.replace(/\/+$/, '');
}

/** What keeps `text` from being a base URL requests can be sent under, or undefined. */
function urlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'it is not a URL';
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http: or https:`;
  if (url.username !== '' || url.password !== '') return 'it holds credentials (use PROVD_AUTH_TOKEN)';
  if (url.search !== '' || url.hash !== '') return 'it holds a query or fragment';
  return undefined;
}

/** GETs a path with the configured token; writes why to `stderr` and resolves undefined if unreachable. */
export async function fetchDaemon(
  baseUrl: string,
  path: string,
  stderr: Writable,
): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const reply = await sendDaemon(baseUrl, { method: 'GET', path });
    if (reply.body !== undefined) return reply;
    stderr.write(`provd: ${baseUrl}${path} answered HTTP ${reply.status} with a body that is not JSON\n`);
  } catch (error) {
    if (!(error instanceof ProvdError)) throw error;
    stderr.write(`provd: ${error.code}: ${error.message}\n`);
  }
  return undefined;
}

/**
 * Sends one JSON request with the configured token and resolves with the status and the parsed
 * body (undefined when not JSON); rejects with PROVD_ERR_CLI_UNREACHABLE when no answer came
 * within `timeoutMs`, PROVD_ERR_CLI_TOO_LARGE past maxJsonAnswerBytes. The AI tools' dispatcher
 * sends through this (ai/tool-dispatcher.ts).
 */
export async function sendDaemon(
  baseUrl: string,
  request: { method: 'GET' | 'POST'; path: string; body?: unknown },
  timeoutMs = requestTimeoutMs,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = authHeaders();
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(baseUrl + request.path, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const bytes = await readAtMost(
      response.body,
      response.headers.get('content-length'),
      maxJsonAnswerBytes,
      `the answer of ${request.path}`,
    );
    return { status: response.status, body: parseJson(bytes.toString('utf8')) };
  } catch (error) {
    if (error instanceof ProvdError) throw error;
    throw new ProvdError(
      'PROVD_ERR_CLI_UNREACHABLE',
      `cannot reach the daemon at ${baseUrl}: ${fetchFailure(error)}`,
      { cause: error },
    );
  }
}

/**
 * GETs a path whose answer may not be JSON (an export's archive): its status, media type and bytes,
 * at most `maxBytes` (`what` names the answer in the refusal); rejects with
 * PROVD_ERR_CLI_UNREACHABLE when no answer came within `timeoutMs`, PROVD_ERR_CLI_TOO_LARGE past
 * the cap.
 */
export async function fetchDaemonBytes(
  baseUrl: string,
  path: string,
  options: { timeoutMs: number; maxBytes: number; what: string },
): Promise<{ status: number; contentType: string; bytes: Uint8Array }> {
  try {
    const response = await fetch(baseUrl + path, {
      headers: authHeaders(),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const declared = response.headers.get('content-length');
    const bytes = await readAtMost(response.body, declared, options.maxBytes, options.what);
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', bytes };
  } catch (error) {
    if (error instanceof ProvdError) throw error;
    throw new ProvdError(
      'PROVD_ERR_CLI_UNREACHABLE',
      `cannot reach the daemon at ${baseUrl}: ${fetchFailure(error)}`,
      { cause: error },
    );
  }
}

/** One HTTP answer of the daemon; `body` is undefined when it was not JSON. */
export interface DaemonAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * POSTs a body with the configured token and resolves with whatever the daemon answered; rejects
 * with an Error saying why only when no answer came (refused, reset, idle past `idleTimeoutMs`).
 * Callers decide about retries, so this writes nothing. node:http rather than fetch: it writes the
 * buffer as is, where undici's copies roughly doubled the CLI's memory per request body.
 */
export function postDaemon(
  baseUrl: string,
  path: string,
  body: Uint8Array,
  options: {
    contentType: string;
    idleTimeoutMs: number;
    headers?: Record<string, string>;
    /**
     * Given an NDJSON answer, each line as it arrives (reading waits for a promise it returns, so a
     * slow reader slows the daemon's writes); the answer's body is then its last line.
     */
    onNdjsonLine?: (line: unknown) => void | Promise<void>;
  },
): Promise<DaemonAnswer> {
  const url = new URL(baseUrl + path);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = {
    ...options.headers,
    ...authHeaders(),
    'content-type': options.contentType,
    'content-length': String(body.byteLength),
  };
  return new Promise((resolve, reject) => {
    const request = send(url, { method: 'POST', headers, timeout: options.idleTimeoutMs }, (response) => {
      const { onNdjsonLine } = options;
      if (onNdjsonLine !== undefined && /^application\/x-ndjson/.test(response.headers['content-type'] ?? ''))
        return void readLines(response, onNdjsonLine).then(
          (last) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: last }),
          reject,
        );
      const declared = response.headers['content-length'];
      readAtMost(response, declared, maxJsonAnswerBytes, `the answer of ${path}`).then(
        (bytes) => {
          const status = response.statusCode ?? 0;
          resolve({ status, headers: response.headers, body: parseJson(bytes.toString('utf8')) });
        },
        (error: unknown) => {
          request.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    request.on('timeout', () => {
      request.destroy(new Error(`no answer for ${options.idleTimeoutMs / 1000} s`));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Calls `onLine` with each line parsed as it arrives; resolves with the last one. */
async function readLines(
  response: NodeJS.ReadableStream,
  onLine: (line: unknown) => void | Promise<void>,
): Promise<unknown> {
  response.setEncoding('utf8'); // a character split between two reads stays whole
  let rest = '';
  let last: unknown;
  const take = async (line: string): Promise<void> => {
    if (line.trim() === '') return;
    last = parseJson(line);
    await onLine(last);
  };
  for await (const text of response) {
    const lines = (rest + String(text)).split('\n');
    rest = lines.pop()!;
    // a line is one progress object: one past the JSON cap is no answer of the daemon's
    if (rest.length > maxJsonAnswerBytes) throw answerTooLarge(maxJsonAnswerBytes, 'one line of the answer');
    for (const line of lines) await take(line);
  }
  await take(rest);
  return last;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The token of $PROVD_AUTH_TOKEN, else of $PROVD_AUTH_TOKEN_FILE; '' when neither is set. */
export function configuredToken(): string {
  const file = process.env['PROVD_AUTH_TOKEN_FILE'];
  return process.env['PROVD_AUTH_TOKEN'] || (file ? readTokenFile(file, 'PROVD_AUTH_TOKEN_FILE') : '');
}

/** The bearer header when a token is configured. */
function authHeaders(): Record<string, string> {
  const token = configuredToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** undici wraps the useful reason (ECONNREFUSED, ...) in `cause` under a bare "fetch failed". */
function fetchFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}
