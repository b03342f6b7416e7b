/** Exact-path routing over the endpoint list: a found route, an unknown path, or a wrong method. */
import { errorReply } from '../shared/http/http-reply.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { Endpoint } from './endpoints.js';

export type RouteMatch =
  | { kind: 'found'; endpoint: Endpoint; handler: RouteHandler }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string };

const notServed: RouteHandler = (request) =>
  errorReply(
    'not_implemented',
    `${request.method} ${request.path} is part of the interface but not served by this build yet`,
  );

/** Maps each endpoint to its handler; every served endpoint must have one. */
export class Router {
  private readonly routes = new Map<string, Map<string, { endpoint: Endpoint; handler: RouteHandler }>>();
  /** Paths that never need the token, whatever the method (the health endpoints). */
  private readonly publicPaths = new Set<string>();

  constructor(endpoints: readonly Endpoint[], handlers: Readonly<Record<string, RouteHandler>>) {
    for (const endpoint of endpoints) {
      const handler = endpoint.served ? handlers[endpoint.operationId] : notServed;
      if (handler === undefined)
        throw new Error(`failed to route ${endpoint.operationId}: it is served but has no handler`);
      const byMethod =
        this.routes.get(endpoint.path) ?? new Map<string, { endpoint: Endpoint; handler: RouteHandler }>();
      byMethod.set(endpoint.method, { endpoint, handler });
      if (endpoint.public === true) this.publicPaths.add(endpoint.path);
      this.routes.set(endpoint.path, byMethod);
    }
  }

  /** True for a path anyone may ask without a token; every other path, unknown ones included, needs it. */
  isPublic(path: string): boolean {
    return this.publicPaths.has(path);
  }

  match(method: string, path: string): RouteMatch {
    const byMethod = this.routes.get(path);
    if (byMethod === undefined) return { kind: 'not_found' };
    // HEAD is GET without the body (RFC 9110 9.3.2): the server sends GET's headers and no body
    const route = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined);
    if (route === undefined) return { kind: 'method_not_allowed', allow: allowed(byMethod) };
    return { kind: 'found', ...route };
  }
}

/** The Allow header of a path: its methods, and HEAD wherever GET is served. */
function allowed(byMethod: ReadonlyMap<string, unknown>): string {
  const methods = [...byMethod.keys()];
  if (methods.includes('GET')) methods.push('HEAD');
  return methods.join(', ');
}
