/**
 * The daemon's hook socket, `<data dir>/hooks.sock`: agents' hooks (provd-hook) reach the daemon
 * here without a token, which every tool call of the model could read; the kernel's word on the
 * peer (SO_PEERCRED: pid, uid, gid) is its authentication, and each event is handled by the hooks
 * route's `handleHook` with that caller. HTTP/1.1 (node:http), so `curl --unix-socket` drives it
 * too: POST /v1/hooks/{agent}[?run=RUN], the payload as the body, the agent's answer back.
 *
 * Mode 0666: the daemon may run as root while agents run as users, and a connection proves
 * nothing but who made it; the data dir's own mode decides who can reach the file. Bounded: a
 * body over 1 MiB, headers over 8 KiB, a request not in within 5 s (checked every 500 ms), or
 * anything that is not HTTP is refused with an error body and counted (producer counters of
 * source `hook_socket`). A PreToolUse is answered without a store round trip, as over HTTP.
 *
 * With PROVD_TRACE_STEPS, each request writes a `hook_answer` line: its total from the
 * connection's accept to its answer written, split into `wait` (accept to the request's head in
 * JS: the event loop busy elsewhere), `read` (the body), `handle` (handleHook up to its reply; its
 * `trust` and, for a PreToolUse, `judge` steps within) and `send` (writing the answer).
 */
import { lstatSync, chmodSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { handleHook, hookQuery, type HookDeps } from '../agents/hooks.route.js';
import { agentHarnesses } from '../agents/agents.js';
import { ProvdError } from '../shared/errors.js';
import { errorReply, statusLine, type HttpReply } from '../shared/http/http-reply.js';
import { log } from '../shared/log.js';
import { StepTrace } from '../store/step-trace.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import { failureReply } from './http-server.js';
import { readPeerCredentials, type PeerCredentials } from './peer-credentials.js';

/** The socket's bounds. */
export const hookSocketLimits = {
  maxBodyBytes: 1024 * 1024,
  maxHeaderBytes: 8 * 1024,
  requestTimeoutMs: 5_000,
  checkIntervalMs: 500,
  maxConnections: 1024,
};

/** What the hook socket needs: the hooks route's parts, and the store to count refusals in. */
export interface HookSocketDeps {
  hooks: HookDeps;
  counters: QueryClient<TelemetryKinds>;
}

const hookPath = /^\/v1\/hooks\/([a-z]+)$/;
const counterFlushMs = 1_000;

/** The hook socket, listening. */
export class HookSocketServer {
  private readonly peers = new WeakMap<Socket, PeerCredentials>();
  /** When each connection was accepted (performance.now()), with PROVD_TRACE_STEPS only. */
  private readonly accepted = new WeakMap<Socket, number>();
  /** Refusals not yet added to the store's counters, by counter. */
  private readonly refused = new Map<string, number>();
  private readonly flushTimer: NodeJS.Timeout;
  private requestCount = 0;

  private constructor(
    private readonly server: Server,
    readonly path: string,
    private readonly deps: HookSocketDeps,
  ) {
    this.flushTimer = setInterval(() => void this.flushCounters(), counterFlushMs).unref();
  }

  /**
   * Listens at `path`: a socket left by a killed daemon is replaced (the store's lock already says
   * no other daemon holds this data dir); any other file there is refused (PROVD_ERR_HOOK_SOCKET).
   */
  static async listen(path: string, deps: HookSocketDeps): Promise<HookSocketServer> {
    const read = readPeerCredentials;
    if (read === null)
      throw new ProvdError(
        'PROVD_ERR_HOOK_SOCKET',
        'the hook socket needs the native hash addon to read peer credentials (npm run build:native)',
      );
    removeStaleSocket(path);
    const server = createServer({
      maxHeaderSize: hookSocketLimits.maxHeaderBytes,
      requestTimeout: hookSocketLimits.requestTimeoutMs,
      headersTimeout: hookSocketLimits.requestTimeoutMs,
      connectionsCheckingInterval: hookSocketLimits.checkIntervalMs,
      keepAliveTimeout: hookSocketLimits.requestTimeoutMs,
    });
    server.maxConnections = hookSocketLimits.maxConnections;
    const hookSocket = new HookSocketServer(server, path, deps);
    server.on('connection', (socket: Socket) => hookSocket.accept(socket, read));
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      hookSocket.serve(request, response),
    );
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
      hookSocket.refuseBroken(error, socket),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o666);
    return hookSocket;
  }

  /** Requests served since the start (answered 200 or refused). */
  get requests(): number {
    return this.requestCount;
  }

  /** Stops accepting, waits up to `timeoutMs` for requests in flight, removes the socket file. */
  async close(timeoutMs: number): Promise<void> {
    clearInterval(this.flushTimer);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => this.server.closeAllConnections(), timeoutMs);
    await closed;
    clearTimeout(timer);
    try {
      unlinkSync(this.path);
    } catch {
      // gone already
    }
    await this.flushCounters();
  }

  private accept(socket: Socket, read: (fd: number) => PeerCredentials): void {
    if (StepTrace.enabled) this.accepted.set(socket, performance.now());
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    try {
      if (fd === undefined || fd < 0) throw new Error('no file descriptor');
      this.peers.set(socket, read(fd));
    } catch (error) {
      this.count('no_peer_credentials');
      log('warn', 'a hook socket connection without peer credentials was closed', { error: String(error) });
      socket.destroy();
    }
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    this.requestCount++;
    const trace = this.traceOf(request.socket);
    const peer = this.peers.get(request.socket);
    const url = new URL(request.url ?? '/', 'http://provd');
    const harness = agentHarnesses.find((agent) => agent.name === hookPath.exec(url.pathname)?.[1]);
    if (peer === undefined)
      return this.refuse(response, 'no_peer_credentials', errorReply('internal', 'no peer'));
    if (harness === undefined)
      return this.refuse(
        response,
        'not_found',
        errorReply(
          'not_found',
          `the hook socket serves POST /v1/hooks/{${agentHarnesses.map((a) => a.name).join('|')}}`,
        ),
      );
    if (request.method !== 'POST')
      return this.refuse(
        response,
        'method_not_allowed',
        errorReply('method_not_allowed', `${url.pathname} takes POST`, { allow: 'POST' }),
      );
    if (Number(request.headers['content-length'] ?? 0) > hookSocketLimits.maxBodyBytes)
      return this.refuse(response, 'payload_too_large', tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > hookSocketLimits.maxBodyBytes) {
        request.removeAllListeners('data');
        this.refuse(response, 'payload_too_large', tooLarge());
      } else chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > hookSocketLimits.maxBodyBytes) return;
      trace?.lap('read');
      const caller = { transport: 'socket' as const, pid: peer.pid, uid: peer.uid, gid: peer.gid };
      const requestId = `hook-socket-${this.requestCount}`;
      // async, so a query refused (thrown) is a rejection like the handler's own
      const reply = (async () =>
        handleHook(
          this.deps.hooks,
          harness,
          caller,
          Buffer.concat(chunks),
          hookQuery.parse(url.searchParams).run,
          trace?.steps,
        ))();
      reply
        .catch((error: unknown) => failureReply(error, { requestId, path: url.pathname }))
        .then((answer) => {
          trace?.lap('handle');
          if (answer.status === 400) this.count('invalid_payload');
          else if (answer.status !== 200) this.count(`status_${answer.status}`);
          send(response, answer);
          trace?.lap('send');
          trace?.steps.end({ agent: harness.name, status: answer.status });
        })
        .catch(() => undefined); // the peer left: nothing to answer
    });
  }

  /** The request's step trace, its `wait` step taken (null without PROVD_TRACE_STEPS). */
  private traceOf(socket: Socket): HookAnswerTrace | null {
    const accepted = this.accepted.get(socket);
    if (accepted === undefined) return null;
    const trace = new HookAnswerTrace(accepted);
    trace.lap('wait');
    return trace;
  }

  /** Answers a request it will not serve; the rest of its body is not read, so the connection closes. */
  private refuse(response: ServerResponse, counter: string, reply: HttpReply): void {
    this.count(counter);
    send(response, { ...reply, close: true });
  }

  /** A request node:http could not read as HTTP, too large in its head, or too slow. */
  private refuseBroken(error: NodeJS.ErrnoException, socket: Socket): void {
    const [counter, reply] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', errorReply('payload_too_large', 'the request head is over 8 KiB')]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ['timeout', errorReply('invalid_argument', 'the request did not arrive within 5 s')]
          : error.code === 'HPE_INVALID_EOF_STATE'
            ? ['truncated', errorReply('invalid_argument', 'the request ended before its body did')]
            : [
                'malformed',
                errorReply('invalid_argument', 'the request is not HTTP/1.1 (POST /v1/hooks/{agent})'),
              ];
    this.count(counter);
    if (socket.writable && error.code !== 'ECONNRESET') {
      const body = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString();
      socket.end(
        `HTTP/1.1 ${statusLine(reply.status)}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroySoon();
  }

  private count(counter: string): void {
    this.refused.set(counter, (this.refused.get(counter) ?? 0) + 1);
  }

  /** Adds the refusals counted since the last flush to the store's producer counters. */
  private async flushCounters(): Promise<void> {
    if (this.refused.size === 0) return;
    const counters = [...this.refused].map(([counter, value]) => ({ source: 'hook_socket', counter, value }));
    this.refused.clear();
    try {
      await this.deps.counters.queryJson('hookLoss', { gaps: [], counters }, { deadlineMs: 10_000 });
    } catch (error) {
      log('warn', 'hook socket refusals could not be counted in the store', {
        counters,
        error: String(error),
      });
    }
  }
}

/** One request's `hook_answer` line: consecutive laps from the connection's accept. */
class HookAnswerTrace {
  readonly steps = new StepTrace('hook_answer');
  private last: number;

  constructor(accepted: number) {
    this.steps.begin(accepted);
    this.last = accepted;
  }

  /** Adds the time since the last lap (or the accept) to step `name`. */
  lap(name: string): void {
    const now = performance.now();
    this.steps.record(name, now - this.last);
    this.last = now;
  }
}

function tooLarge(): HttpReply {
  return errorReply('payload_too_large', `the hook payload is over ${hookSocketLimits.maxBodyBytes} bytes`);
}

function send(response: ServerResponse, reply: HttpReply): void {
  if (response.headersSent || response.destroyed) return;
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  response.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.byteLength,
    ...(reply.close === true ? { connection: 'close' } : {}),
    ...reply.headers,
  });
  response.end(body);
}

/** Removes a socket file a killed daemon left; refuses anything else at the path. */
function removeStaleSocket(path: string): void {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ProvdError('PROVD_ERR_HOOK_SOCKET', `cannot read ${path}: ${String(error)}`);
  }
  if (!isSocket)
    throw new ProvdError(
      'PROVD_ERR_HOOK_SOCKET',
      `${path} is there and is not a socket: provd makes its hook socket there; move that file away`,
    );
  unlinkSync(path);
}
