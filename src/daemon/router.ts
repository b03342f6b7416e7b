/** Exact-path routing over the endpoint list: a found route, an unknown path, or a wrong method. */
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';

export type RouteMatch =
  | { kind: 'found'; endpoint: Endpoint<never>; handler: RouteHandler }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string };

/** An endpoint with its handler. */
interface Route {
  endpoint: Endpoint<never>;
  handler: RouteHandler;
}

/** Maps each endpoint to its handler, built once from the daemon's parts. */
export class Router {
  private readonly routes = new Map<string, Map<string, Route>>();
  /** Paths that never need the token, whatever the method (the health endpoints). */
  private readonly publicPaths = new Set<string>();

  private constructor() {}

  /** The router of `endpoints`, each handler built once from the daemon's parts. */
  static of<Deps>(endpoints: readonly Endpoint<Deps>[], deps: Deps): Router {
    const router = new Router();
    for (const endpoint of endpoints) router.add(endpoint, endpoint.handler(deps));
    return router;
  }

  private add(endpoint: Endpoint<never>, handler: RouteHandler): void {
    const byMethod = this.routes.get(endpoint.path) ?? new Map<string, Route>();
    byMethod.set(endpoint.method, { endpoint, handler });
    if (endpoint.public === true) this.publicPaths.add(endpoint.path);
    this.routes.set(endpoint.path, byMethod);
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
