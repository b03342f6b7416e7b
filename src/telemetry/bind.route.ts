/** POST /v1/telemetry/bind on the main thread: validate the body, then let the store actor persist it. */
import { errorReply, jsonReply } from '../shared/http/http-reply.js';
import { parseJsonObject } from '../shared/http/json-body.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteHandler } from '../shared/http/route.js';
import { log } from '../shared/log.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { isBindRequestError, parseBindRequest, sourceDefaultConfidence, type Binding } from './binding.js';
import type { BindingLog } from './binding-log.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import { bindRequestType } from './bind-request.js';
import { type BindingAnswer, bindContract } from './bind.contract.js';

/** How long a bind may take: settling a full spool is chunked, but a million events take a while. */
const bindDeadlineMs = 120_000;

/**
 * Stores a binding and hands it to the normalize workers; resolves to the spooled events it
 * settled. Once it resolves, no event sent after is correlated without it.
 */
export async function storeBinding(
  store: QueryClient<TelemetryKinds>,
  bindingLog: BindingLog,
  binding: Binding,
): Promise<number> {
  const { recorrelated } = await store.queryJson('bind', { binding }, { deadlineMs: bindDeadlineMs });
  if (!bindingLog.append(binding))
    log('warn', 'binding log full: workers spool, the store settles at commit', {});
  return recorrelated;
}

/** Answers `provenance.binding/v1`: the binding as stored, and how many spooled events it settled. */
function bindRoute(store: QueryClient<TelemetryKinds>, bindingLog: BindingLog): RouteHandler {
  return async (request) => {
    const parsed = parseBindRequest(parseJsonObject(request.body), BigInt(Date.now()) * 1_000_000n);
    if (isBindRequestError(parsed)) return errorReply('invalid_argument', parsed.message);
    const recorrelated = await storeBinding(store, bindingLog, parsed);
    const { created_ns: createdNs, startNs: _start, endNs: _end, ...fields } = parsed;
    const answer: BindingAnswer = {
      schema_version: 'provenance.binding/v1',
      ...fields,
      created_at: formatRfc3339Nanos(createdNs),
      recorrelated,
    };
    return jsonReply(200, answer);
  };
}

/**
 * What a process a binding covers may bind over HTTP: what bind_scope sends, `ai_asserted` at a
 * confidence of at most 0.5, whose events stay `context_asserted` and lose to a system-side binding.
 */
function watchedBind(body: Record<string, unknown>): string | null {
  const most = sourceDefaultConfidence.ai_asserted;
  const { binding_source: source, confidence } = body;
  if (
    source === 'ai_asserted' &&
    (confidence === undefined || (typeof confidence === 'number' && confidence <= most))
  )
    return null;
  return `it may bind only as binding_source "ai_asserted" with a confidence of at most ${most}, as the bind_scope tool does`;
}

/** POST /v1/telemetry/bind. */
export const bindEndpoint: Endpoint<{ store: QueryClient<TelemetryKinds>; bindingLog: BindingLog }> = {
  ...bindContract,
  summary: 'Bind a ToolCallScope to processes, cgroups or containers',
  body: 'application/json',
  bodyType: bindRequestType,
  watched: watchedBind,
  handler: ({ store, bindingLog }) => bindRoute(store, bindingLog),
};
