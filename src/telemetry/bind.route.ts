/** POST /v1/telemetry/bind on the main thread: validate the body, then let the store actor persist it. */
import { errorReply, jsonReply } from '../daemon/http-reply.js';
import { parseJsonObject } from '../daemon/json-body.js';
import type { RouteHandler } from '../daemon/router.js';
import { log } from '../shared/log.js';
import { parseBindRequest } from './binding.js';
import { formatRfc3339Nanos } from './rfc3339.js';

/** Answers `provenance.binding/v1`: the binding as stored, and how many spooled events it settled. */
export const bindRoute: RouteHandler = async (request, { store, bindingLog }) => {
  const parsed = parseBindRequest(parseJsonObject(request.body), BigInt(Date.now()) * 1_000_000n);
  if (!('binding_id' in parsed)) return errorReply('invalid_argument', parsed.message);
  const bytes = await store.query('bind', { binding: parsed }, 30_000);
  const { recorrelated } = JSON.parse(new TextDecoder().decode(bytes)) as { recorrelated: number };
  // before the answer, so no ingest sent after it can be correlated without this binding
  if (!bindingLog.append(parsed))
    log('warn', 'binding log full: workers spool, the store settles at commit', {});
  const { created_ns: createdNs, startNs: _start, endNs: _end, ...fields } = parsed;
  return jsonReply(200, {
    schema_version: 'provenance.binding/v1',
    ...fields,
    created_at: formatRfc3339Nanos(createdNs),
    recorrelated,
  });
};
