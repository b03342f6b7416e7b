/** POST /v1/telemetry/ingest on the main thread: check the format and the Idempotency-Key, then route the body. */
import typia, { type tags } from 'typia';
import { jsonReply } from '../shared/http/http-reply.js';
import { ParamContract } from '../shared/http/param-contract.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { IngestFormat } from '../model/event.js';
import type { IngestRouter } from './ingest-router.js';
import type { IngestAnswer } from '../telemetry/batch-commit.js';

/** The request headers POST /v1/telemetry/ingest reads. */
export interface IngestHeaders {
  /**
   * makes a resend safe: the same key with the same body and format is answered as the first time
   * (header Idempotent-Replayed: true) and stored once; with another body or format, 422. Keys are
   * kept 24 hours. Visible ASCII: a UUID with a chunk number fits.
   */
  'idempotency-key'?: string & tags.MinLength<1> & tags.MaxLength<255> & tags.Pattern<'^[\\x21-\\x7e]*$'>;
}

/** How the ingest route reads its headers, and the endpoint's OpenAPI header parameters. */
export const ingestHeaders = new ParamContract<IngestHeaders>(
  typia.json.schema<IngestHeaders, '3.1'>(),
  typia.createValidate<IngestHeaders>(),
  'header',
);

/** The query string of POST /v1/telemetry/ingest. */
export interface IngestQuery {
  /** input format, default auto (detected per line) */
  format?: IngestFormat;
}

/** How the ingest route reads its query, and the endpoint's OpenAPI parameters. */
export const ingestQuery = new ParamContract<IngestQuery>(
  typia.json.schema<IngestQuery, '3.1'>(),
  typia.createValidate<IngestQuery>(),
);

/** Answers `provenance.ingest/v1` once the body is committed; a replayed answer says so in a header. */
function ingestRoute(router: IngestRouter): RouteHandler {
  return async ({ query, headers, body }) => {
    const format = ingestQuery.parse(query).format ?? 'auto';
    const key = ingestHeaders.parseHeaders(headers)['idempotency-key'] ?? null;
    const { answer, replayed } = await router.ingest(body ?? new Uint8Array(0), format, key);
    const reply = jsonReply(200, answer);
    return replayed ? { ...reply, headers: { 'idempotent-replayed': 'true' } } : reply;
  };
}

/** POST /v1/telemetry/ingest. */
export const ingestEndpoint: Endpoint<{ ingest: IngestRouter }> = {
  method: 'POST',
  path: '/v1/telemetry/ingest',
  operationId: 'ingest',
  summary: 'Ingest NDJSON telemetry (format=native|tetragon|falco|auto)',
  schema: 'ingest',
  answerType: () => typia.json.schemas<[IngestAnswer], '3.1'>(),
  body: 'application/x-ndjson',
  headers: ingestHeaders.parameters,
  query: ingestQuery.parameters,
  errors: ['422', '429'],
  handler: ({ ingest }) => ingestRoute(ingest),
};
