/** The handler of every served endpoint, by operationId (see endpoints.ts). */
import { bindRoute } from '../telemetry/bind.route.js';
import { correlationsRoute } from '../telemetry/correlations.route.js';
import { eventsRoute } from '../telemetry/events.route.js';
import { producerHealthRoute } from '../telemetry/producer-health.route.js';
import { windowsRoute } from '../telemetry/windows.route.js';
import { ingestFormats } from '../telemetry/event.js';
import { optionalEnum } from './query-params.js';
import { jsonReply, type HttpReply } from './http-reply.js';
import { openapiBytes } from './openapi.js';
import type { RouteHandler } from './router.js';

const liveness: HttpReply = jsonReply(200, { schema_version: 'provenance.daemon_liveness/v1', status: 'ok' });

const readiness: RouteHandler = async (_request, { readiness }) => {
  const { status, health } = await readiness.run();
  return jsonReply(status, health);
};

const ingest: RouteHandler = async (request, { ingest }) => {
  const format = optionalEnum(request.query, 'format', ingestFormats) ?? 'auto';
  return jsonReply(200, await ingest.ingest(request.body ?? new Uint8Array(0), format));
};

/** Handlers keyed by operationId; the router refuses to start if a served endpoint has none. */
export const handlers: Readonly<Record<string, RouteHandler>> = {
  liveness: () => liveness,
  readiness,
  health: readiness,
  openapi: () => ({ status: 200, body: openapiBytes }),
  ingest,
  bind: bindRoute,
  list_events: eventsRoute,
  list_windows: windowsRoute,
  explain_correlations: correlationsRoute,
  telemetry_producer_health: producerHealthRoute,
};
