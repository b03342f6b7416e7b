/**
 * The daemon's own endpoints: liveness, readiness and health (no token needed), and the OpenAPI
 * document. Each is declared here once, like any domain's route.
 */
import type { Endpoint } from '../shared/http/endpoint.js';
import { jsonReply } from '../shared/http/http-reply.js';
import type { RouteHandler } from '../shared/http/route.js';
import { withoutHostPaths, type ReadinessCheck } from './readiness-check.js';
import { livenessReply } from './liveness.js';
import typia from 'typia';
import type { DaemonHealth } from './daemon-health.js';
import type { Liveness } from './liveness.js';

export const livenessEndpoint: Endpoint = {
  method: 'GET',
  path: '/v1/live',
  operationId: 'liveness',
  summary: 'Liveness: the HTTP process can respond',
  schema: 'daemon_liveness',
  answerType: () => typia.json.schemas<[Liveness], '3.1'>(),
  public: true,
  handler: () => () => livenessReply,
};

/** Readiness and health answer the same check; a 503 asks the prober to come back. */
function healthRoute(readiness: ReadinessCheck): RouteHandler {
  return async (request) => {
    const { status, health } = await readiness.run();
    // the health endpoints need no token: without it, they do not tell where things are on the host
    const reply = jsonReply(status, request.authenticated ? health : withoutHostPaths(health));
    // not ready: the check runs again (and a lost store is reopened) at the next probe
    return status === 503 ? { ...reply, headers: { 'retry-after': '5' } } : reply;
  };
}

export const readinessEndpoint: Endpoint<{ readiness: ReadinessCheck }> = {
  method: 'GET',
  path: '/v1/ready',
  operationId: 'readiness',
  summary: 'Readiness: database query and store format check (2 s deadline)',
  schema: 'daemon_health',
  answerType: () => typia.json.schemas<[DaemonHealth], '3.1'>(),
  public: true,
  handler: ({ readiness }) => healthRoute(readiness),
};

export const healthEndpoint: Endpoint<{ readiness: ReadinessCheck }> = {
  method: 'GET',
  path: '/v1/health',
  operationId: 'health',
  summary: 'Health: readiness plus recorded coverage and capture state',
  schema: 'daemon_health',
  answerType: () => typia.json.schemas<[DaemonHealth], '3.1'>(),
  public: true,
  handler: ({ readiness }) => healthRoute(readiness),
};

/** The document's bytes come in `openapi`: it is built from the list this endpoint is part of. */
export const openapiEndpoint: Endpoint<{ openapi: () => Uint8Array }> = {
  method: 'GET',
  path: '/v1/openapi.json',
  operationId: 'openapi',
  summary: 'This OpenAPI 3.1.0 document',
  schema: 'openapi',
  handler:
    ({ openapi }) =>
    () => ({ status: 200, body: openapi() }),
};
