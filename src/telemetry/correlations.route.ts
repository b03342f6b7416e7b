/** GET /v1/telemetry/correlations on the main thread: check parameters, forward the store's bytes. */
import { optionalId, requireId } from '../daemon/query-params.js';
import type { RouteHandler } from '../daemon/router.js';

export const correlationsRoute: RouteHandler = async (request, { store }) => {
  const params = { run: requireId(request.query, 'run'), event: optionalId(request.query, 'event') ?? null };
  return { status: 200, body: await store.query('correlations', params, 10_000) };
};
