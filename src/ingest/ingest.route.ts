/** POST /v1/telemetry/ingest on the main thread: check the format and the Idempotency-Key, then route the body. */
import typia from 'typia';
import { ProvdError } from '../shared/errors.js';
import { jsonReply } from '../shared/http/http-reply.js';
import { QueryContract } from '../shared/http/query-contract.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { IngestFormat } from '../telemetry/event.js';
import type { IngestRouter } from './ingest-router.js';

/** The request header that makes a resend safe. */
export const idempotencyHeader = 'idempotency-key';

// visible ASCII, as HTTP header values carry it safely; long enough for a UUID plus a chunk number
const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** The query string of POST /v1/telemetry/ingest. */
export interface IngestQuery {
  /** input format, default auto (detected per line) */
  format?: IngestFormat;
}

/** How the ingest route reads its query, and the endpoint's OpenAPI parameters. */
export const ingestQuery = new QueryContract<IngestQuery>(
  typia.json.schema<IngestQuery, '3.1'>(),
  typia.createValidate<IngestQuery>(),
);

/** Answers `provenance.ingest/v1` once the body is committed; a replayed answer says so in a header. */
export function ingestRoute(router: IngestRouter): RouteHandler {
  return async ({ query, headers, body }) => {
    const format = ingestQuery.parse(query).format ?? 'auto';
    const key = headers[idempotencyHeader] ?? '';
    if (key !== '' && !idempotencyKeyPattern.test(key)) {
      throw new ProvdError('invalid_argument', 'Idempotency-Key must be 1..255 visible ASCII characters');
    }
    const { answer, replayed } = await router.ingest(
      body ?? new Uint8Array(0),
      format,
      key === '' ? null : key,
    );
    const reply = jsonReply(200, answer);
    return replayed ? { ...reply, headers: { 'idempotent-replayed': 'true' } } : reply;
  };
}
