/** GET /v1/telemetry/windows on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ProvdError } from '../shared/errors.js';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import type { DateTimeText } from '../shared/schema/wire-types.js';
import { defaultPageLimit, type RunPageQuery } from '../model/paging.js';
import { parseRfc3339 } from '../shared/rfc3339.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { WindowLength } from './window-facts.js';
import type { TelemetryEventWindows } from './windows.sql.js';

/** The query string of GET /v1/telemetry/windows. */
export type WindowsQuery = RunPageQuery & {
  /** window length in seconds, default 60 */
  window?: WindowLength;
  /** windows ending after this instant */
  from?: DateTimeText;
  /** windows starting at or before this instant */
  to?: DateTimeText;
};

/** How the windows route reads its query, and the endpoint's OpenAPI parameters: both from WindowsQuery. */
export const windowsQuery = new ParamContract<WindowsQuery>(
  typia.json.schema<WindowsQuery, '3.1'>(),
  typia.createValidate<WindowsQuery>(),
);

// typia drops a Default tag on a union of literals, so this default is stated in the JSDoc above
const defaultWindow: WindowLength = 60;

/** A run's windows of one length, optionally of one type and overlapping [from, to], paged. */
export const windowsEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/telemetry/windows',
  operationId: 'list_windows',
  summary: 'Events aggregated in 10 s or 60 s windows',
  schema: 'telemetry_event_windows',
  answerType: () => typia.json.schemas<[TelemetryEventWindows], '3.1'>(),
  contract: windowsQuery,
  kind: 'windows',
  params: ({ run, window, type, from, to, limit, cursor }) => {
    const fromNs = instantOf('from', from);
    const toNs = instantOf('to', to);
    if (fromNs !== null && toNs !== null && fromNs > toNs)
      throw new ProvdError('invalid_argument', 'from must not be after to');
    return {
      run,
      window: window ?? defaultWindow,
      type: type ?? null,
      fromNs,
      toNs,
      limit: limit ?? defaultPageLimit,
      cursor: cursor ?? null,
    };
  },
});

/** The instant of an RFC 3339 parameter, null when absent; the schema states only the format. */
function instantOf(name: 'from' | 'to', text: string | undefined): bigint | null {
  if (text === undefined) return null;
  const ns = parseRfc3339(text);
  if (ns === undefined) throw windowsQuery.invalid(name);
  return ns;
}
