/**
 * The uWS HTTP server, main thread only: routing, auth, body limits, request ids, error mapping.
 * Handlers get a fully read request and return an HttpReply; nothing here touches the database.
 */
import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { isUnavailable, isWireErrorCode, ProvdError, toErrorData } from '../shared/errors.js';
import { log } from '../shared/log.js';
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';
import type { LocalReply, LocalRequest, RouteHandler, RouteRequest } from '../shared/http/route.js';
import type { BodyBudget } from '../shared/http/body-budget.js';
import type { BearerAuth } from './bearer-auth.js';
import { readBody, type BodyLimits } from './body-reader.js';
import { maxJsonBodyBytes } from '../shared/http/json-body.js';
import { refusedBrowserRequest, refusedContentType } from './browser-guard.js';
import { refusedContentLength } from './content-length.js';
import { Exchange } from './exchange.js';
import type { Router } from './router.js';
import { listenExclusive, loadUws } from './uws.js';
import type { WatchedCallers, WatchedRequest } from './watched-callers.js';
import type { WebPages } from '../views/web/web-pages.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Undefined when no token is configured: every request is accepted. */
  auth: BearerAuth | undefined;
  router: Router;
  /** The web view's files (GET /ui): served without the token, as they hold no data. */
  pages: WebPages;
  /** Budgets of body bytes in memory, by operationId; a body that does not fit is answered 429. */
  bodyBudgets: Readonly<Partial<Record<string, BodyBudget>>>;
  /** Refuses writes of processes a binding covers (their connections marked by the kernel); none: not checked. */
  watched?: WatchedCallers;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** Serves the router over uWS until `stopAccepting`, then lets in-flight requests finish. */
export class HttpServer {
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  /** The bound port, once listening: the daemon's own origin names it. */
  private port = 0;
  private inFlight = 0;
  private stopping = false;
  private onIdle: (() => void) | undefined;

  constructor(private readonly options: HttpServerOptions) {
    this.app = loadUws().App();
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  /** Listens on host:port (port 0 picks one); resolves with the bound port. */
  listen(): Promise<number> {
    const { host, port } = this.options;
    return new Promise((resolve, reject) => {
      listenExclusive(this.app, host, port, (socket) => {
        if (socket === false) {
          reject(
            new ProvdError(
              'PROVD_ERR_HTTP_LISTEN',
              `failed to listen on ${host}:${port} (in use, by another provd too, or not a local address)`,
            ),
          );
          return;
        }
        this.listenSocket = socket;
        this.port = loadUws().us_socket_local_port(socket);
        resolve(this.port);
      });
    });
  }

  /** Closes the listening socket; requests on open connections get 503 and a closed connection. */
  stopAccepting(): void {
    this.stopping = true;
    if (this.listenSocket !== undefined) loadUws().us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
  }

  /**
   * Closes the listening socket and every connection, kept-alive ones included, so no socket of
   * uWS is open when the process exits. A request still in flight is aborted.
   */
  closeAll(): void {
    this.stopping = true;
    this.listenSocket = undefined;
    // in uWS 20.30's binding, not in its typings: closes every socket of the app
    (this.app as TemplatedApp & { close(): void }).close();
  }

  /** Resolves true once no request is in flight, or false when `timeoutMs` passes first. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  private onRequest(res: HttpResponse, req: HttpRequest): void {
    // uWS request data is only valid in this synchronous part: read everything needed now.
    const supplied = req.getHeader('x-request-id');
    const requestId = requestIdPattern.test(supplied) ? supplied : randomUUID();
    const method = req.getCaseSensitiveMethod();
    const path = req.getUrl();
    this.inFlight++;
    const exchange = new Exchange(res, requestId, () => this.finished(), method === 'HEAD');

    // before anything else: uWS closes the connection right after this handler on such a length
    const refusedLength = refusedContentLength(req.getHeader('content-length'), this.options.maxBodyBytes);
    if (refusedLength !== undefined) return exchange.send(refusedLength);
    const { auth, router } = this.options;
    const marks = {
      host: req.getHeader('host'),
      origin: req.getHeader('origin'),
      secFetchSite: req.getHeader('sec-fetch-site'),
      contentType: req.getHeader('content-type'),
    };
    const fromPage = refusedBrowserRequest(marks, { port: this.port, tokenConfigured: auth !== undefined });
    if (fromPage !== undefined) return exchange.send(fromPage);
    // the view's page, script and style hold nothing: a browser's navigation carries no token
    const page = this.options.pages.reply(method, path);
    if (page !== undefined) return exchange.send(page);
    // Auth comes before routing: without the token, a client learns nothing about which paths or
    // methods exist (no 404 or 405), only that it must authenticate.
    const authResult = auth === undefined ? 'ok' : auth.check(req.getHeader('authorization'));
    if (authResult !== 'ok' && !router.isPublic(path)) return exchange.send(unauthorized(authResult));
    const authenticated = authResult === 'ok';
    const match = router.match(method, path);
    if (match.kind === 'not_found') return exchange.send(errorReply('not_found', `no such path: ${path}`));
    if (match.kind === 'method_not_allowed') {
      const message = `${method} is not allowed on ${path}; allowed: ${match.allow}`;
      return exchange.send(errorReply('method_not_allowed', message, { allow: match.allow }));
    }
    const { endpoint, handler } = match;
    // While stopping, the health endpoints still answer (and say so); everything else is refused.
    if (this.stopping && endpoint.public !== true) {
      return exchange.send({ ...errorReply('unavailable', 'the daemon is shutting down'), close: true });
    }
    // a write of a process a binding covers: refused, or judged by its body below
    const watched: WatchedRequest | undefined =
      this.options.watched === undefined || endpoint.method === 'GET'
        ? undefined
        : { method, path, requestId, remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString() };
    const refusedWatched = watched && this.options.watched?.refusal(endpoint, watched);
    if (refusedWatched !== undefined) return exchange.send(refusedWatched);
    const headers: Record<string, string> = {};
    for (const { name } of endpoint.headers ?? []) headers[name] = req.getHeader(name);
    const request: RouteRequest = {
      method,
      path,
      query: new URLSearchParams(req.getQuery() ?? ''),
      headers,
      body: undefined,
      requestId,
      authenticated,
      stream: (contentType) => exchange.openStream(contentType),
      // a public path's caller may hold no token: it reaches no other endpoint through this
      ...(authenticated && { local: (call: LocalRequest) => this.callLocal(call, requestId, watched) }),
    };
    if (endpoint.body === undefined) return this.dispatch(exchange, handler, request);

    const maxBodyBytes =
      endpoint.body === 'application/json'
        ? Math.min(maxJsonBodyBytes, this.options.maxBodyBytes)
        : this.options.maxBodyBytes;
    const declared = req.getHeader('content-length');
    const declaredBytes = declared === '' ? undefined : Number(declared);
    if (declaredBytes !== undefined && declaredBytes > maxBodyBytes) {
      // uWS closes once the answer is out, so a body up to ~1 GB is not read only to be dropped
      return exchange.send({ ...tooLarge(maxBodyBytes), close: true });
    }
    // a page's simple request (a form, `text/plain`, no type) cannot name these types
    const wrongType = refusedContentType(marks.contentType, endpoint.body);
    if (wrongType !== undefined) return exchange.send(wrongType);
    const limits: BodyLimits = {
      maxBodyBytes,
      declaredBytes,
      budget: this.options.bodyBudgets[endpoint.operationId],
      tooLarge: () => tooLarge(maxBodyBytes),
      backpressure: (why) =>
        errorReply('backpressure', `${path} takes no more bodies now (${why}); retry later`),
    };
    void readBody(res, exchange, limits).then((body) => {
      if (body === undefined) return;
      const refusedBody = watched && this.options.watched?.refusalOfBody(endpoint, watched, body);
      if (refusedBody !== undefined) return exchange.send(refusedBody);
      request.body = body; // the request object is this exchange's own: set, not copied, per request
      this.dispatch(exchange, handler, request);
    });
  }

  private dispatch(exchange: Exchange, handler: RouteHandler, request: RouteRequest): void {
    let reply: HttpReply | Promise<HttpReply>;
    try {
      reply = handler(request);
    } catch (error) {
      return exchange.send(failureReply(error, request));
    }
    if (!(reply instanceof Promise)) return exchange.send(reply);
    reply.then(
      (answer) => exchange.send(answer),
      (error: unknown) => exchange.send(failureReply(error, request)),
    );
  }

  /**
   * Serves `call` to the router in-process, as the request it came from: past its token, under its
   * watched mark (a marked caller's write is judged as if sent itself). The MCP endpoint's tools.
   */
  private async callLocal(
    call: LocalRequest,
    requestId: string,
    outer: WatchedRequest | undefined,
  ): Promise<LocalReply> {
    const queryAt = call.path.indexOf('?');
    const path = queryAt < 0 ? call.path : call.path.slice(0, queryAt);
    const match = this.options.router.match(call.method, path);
    if (match.kind !== 'found') throw new Error(`no endpoint ${call.method} ${path} for an in-process call`);
    const { endpoint, handler } = match;
    const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
    const watched = outer && { ...outer, method: call.method, path };
    const refused =
      watched &&
      (this.options.watched?.refusal(endpoint, watched) ??
        this.options.watched?.refusalOfBody(endpoint, watched, body));
    const headers: Record<string, string> = {};
    for (const { name } of endpoint.headers ?? []) headers[name] = '';
    const request: RouteRequest = {
      method: call.method,
      path,
      query: new URLSearchParams(queryAt < 0 ? '' : call.path.slice(queryAt + 1)),
      headers,
      body,
      requestId,
      authenticated: true,
    };
    let reply: HttpReply;
    try {
      reply = refused ?? (await handler(request));
    } catch (error) {
      reply = failureReply(error, request);
    }
    const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
    try {
      return { status: reply.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: reply.status, body: undefined };
    }
  }

  private finished(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.onIdle !== undefined) this.onIdle();
  }
}

function tooLarge(maxBodyBytes: number): HttpReply {
  return errorReply('payload_too_large', `the body is over the limit of ${maxBodyBytes} bytes`);
}

function unauthorized(result: 'missing' | 'invalid'): HttpReply {
  if (result === 'missing') {
    return errorReply('unauthorized', 'this endpoint needs Authorization: Bearer <token>', {
      'www-authenticate': 'Bearer realm="provd"',
    });
  }
  return errorReply('unauthorized', 'the bearer token is wrong', {
    'www-authenticate': 'Bearer realm="provd", error="invalid_token"',
  });
}

/**
 * A ProvdError with a wire code answers as itself. A store that cannot serve is 503: a timeout or a
 * stopped store is safe to describe, storage trouble stays in the log. Anything else is a bug in
 * provd: 500, with the details only in the log.
 */
export function failureReply(error: unknown, request: Pick<RouteRequest, 'requestId' | 'path'>): HttpReply {
  if (error instanceof ProvdError) {
    if (isWireErrorCode(error.code)) return errorReply(error.code, error.message);
    if (error.code === 'PROVD_ERR_STORE_DISK_FULL') {
      log('error', 'disk full', { request_id: request.requestId, path: request.path, error: error.toData() });
      return errorReply(
        'unavailable',
        'the disk under the data dir is full (PROVD_ERR_STORE_DISK_FULL): nothing of this request was stored; provd serves again once space is freed',
      );
    }
    if (error.code === 'PROVD_ERR_STORE_TIMEOUT' || error.code === 'PROVD_ERR_STORE_STOPPED') {
      return errorReply('unavailable', `the store is unavailable: ${error.message}`);
    }
    if (isUnavailable(error.code)) {
      log('error', 'store unavailable', {
        request_id: request.requestId,
        path: request.path,
        error: error.toData(),
      });
      return errorReply(
        'unavailable',
        `the store could not answer; see the daemon log for request ${request.requestId}`,
      );
    }
  }
  log('error', 'request failed', {
    request_id: request.requestId,
    path: request.path,
    error: toErrorData(error, 'internal'),
  });
  return errorReply('internal', `internal error; see the daemon log for request ${request.requestId}`);
}
