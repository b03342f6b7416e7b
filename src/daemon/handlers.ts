/** The handler of every served endpoint, by operationId (see endpoints.ts). */
import { jsonReply, type HttpReply } from './http-reply.js';
import { openapiBytes } from './openapi.js';
import type { RouteHandler } from './router.js';

const liveness: HttpReply = jsonReply(200, { schema_version: 'provenance.daemon_liveness/v1', status: 'ok' });

const readiness: RouteHandler = async (_request, { readiness }) => {
  const { status, health } = await readiness.run();
  return jsonReply(status, health);
};

/** Handlers keyed by operationId; the router refuses to start if a served endpoint has none. */
export const handlers: Readonly<Record<string, RouteHandler>> = {
  liveness: () => liveness,
  readiness,
  health: readiness,
  openapi: () => ({ status: 200, body: openapiBytes }),
};
