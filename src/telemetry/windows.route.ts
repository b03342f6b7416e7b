/** GET /v1/telemetry/windows on the main thread: check parameters, forward the store's bytes. */
import { ProvdError } from '../shared/errors.js';
import { optionalEnum, optionalId, optionalInteger, requireId } from '../shared/http/query-params.js';
import type { RouteHandler } from '../shared/http/route.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { eventTypes } from './event.js';
import type { TelemetryQueries } from './telemetry-queries.js';
import { defaultPageLimit, maxPageLimit } from './events.route.js';
import { parseRfc3339 } from './rfc3339.js';

/** A run's windows: `window` 10 or 60 (default 60), optional `type`, `from`/`to` (RFC 3339), paged. */
export function windowsRoute(store: QueryClient<TelemetryQueries>): RouteHandler {
  return async ({ query }) => {
    const window = optionalEnum(query, 'window', ['10', '60'] as const) ?? '60';
    const fromNs = optionalInstant(query, 'from');
    const toNs = optionalInstant(query, 'to');
    if (fromNs !== null && toNs !== null && fromNs > toNs)
      throw new ProvdError('invalid_argument', 'from must not be after to');
    const params = {
      run: requireId(query, 'run'),
      window: Number(window) as 10 | 60,
      type: optionalEnum(query, 'type', eventTypes) ?? null,
      fromNs,
      toNs,
      limit: optionalInteger(query, 'limit', 1, maxPageLimit) ?? defaultPageLimit,
      cursor: query.get('cursor'),
    };
    return { status: 200, body: await store.query('windows', params, { deadlineMs: 10_000 }) };
  };
}

function optionalInstant(query: URLSearchParams, name: string): bigint | null {
  const text = optionalId(query, name);
  if (text === undefined) return null;
  const ns = parseRfc3339(text);
  if (ns === undefined)
    throw new ProvdError(
      'invalid_argument',
      `${name} must be an RFC 3339 date-time, like 2026-01-01T00:00:00Z`,
    );
  return ns;
}
