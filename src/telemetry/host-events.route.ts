/** GET /v1/telemetry/host-events on the main thread: check parameters and the time range, forward the store's bytes. */
import typia, { type tags } from 'typia';
import { ProvdError } from '../shared/errors.js';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import { instantParamRule, parseInstantParam } from '../shared/instant-param.js';
import type { EventType } from '../model/event.js';
import { defaultPageLimit, type PageQuery } from '../model/paging.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { HostEvents } from './host-events.js';

/** A time bound: an RFC 3339 date-time or a duration back from now (`10m`). */
type InstantParam = string &
  tags.MinLength<2> &
  tags.MaxLength<64> &
  tags.Pattern<'^([0-9]{1,9}(ms|s|m|h|d)|[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt].+)$'> &
  tags.JsonSchemaPlugin<{ examples: ['10m', '2026-01-01T00:00:00Z'] }>;

/** The query string of GET /v1/telemetry/host-events. */
export interface HostEventsQuery extends PageQuery {
  /** only events captured at or after this instant: an RFC 3339 date-time or a duration back from now (90s, 10m, 2h, 7d) */
  since?: InstantParam;
  /** only events captured before this instant (exclusive), in the same forms as since */
  until?: InstantParam;
  /** event type filter */
  type?: EventType;
}

/** How the host events route reads its query, and the endpoint's OpenAPI parameters: both from HostEventsQuery. */
export const hostEventsQuery = new ParamContract<HostEventsQuery>(
  typia.json.schema<HostEventsQuery, '3.1'>(),
  typia.createValidate<HostEventsQuery>(),
);

/** `since`/`until` as Unix ns (decimal text) at `nowNs`, or 400 invalid_argument naming the bound and its forms. */
function boundOf(name: 'since' | 'until', text: string | undefined, nowNs: bigint): string | null {
  if (text === undefined) return null;
  const ns = parseInstantParam(text, nowNs);
  if (ns === undefined) throw new ProvdError('invalid_argument', `${name} must be ${instantParamRule}`);
  return ns.toString();
}

/** One page of the host's events (bound to no run); the cursor is checked by the store, which issued it. */
export const hostEventsEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/telemetry/host-events',
  operationId: 'list_host_events',
  summary: 'One page of runtime events of the host (bound to no run), by capture time range',
  schema: 'host_events',
  answerType: () => typia.json.schemas<[HostEvents], '3.1'>(),
  contract: hostEventsQuery,
  kind: 'hostEvents',
  params: ({ since, until, type, limit, cursor }) => {
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const sinceNs = boundOf('since', since, nowNs);
    const untilNs = boundOf('until', until, nowNs);
    if (sinceNs !== null && untilNs !== null && BigInt(untilNs) <= BigInt(sinceNs))
      throw new ProvdError('invalid_argument', 'until must be after since');
    return {
      sinceText: since ?? null,
      untilText: until ?? null,
      sinceNs,
      untilNs,
      type: type ?? null,
      limit: limit ?? defaultPageLimit,
      cursor: cursor ?? null,
    };
  },
});
