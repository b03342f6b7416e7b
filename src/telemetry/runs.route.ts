/** GET /v1/runs on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import { defaultPageLimit, type PageQuery } from '../model/paging.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { RunList } from './run-list.js';

/** The query string of GET /v1/runs. */
export type RunsQuery = PageQuery;

/** How the runs route reads its query, and the endpoint's OpenAPI parameters: both from RunsQuery. */
export const runsQuery = new ParamContract<RunsQuery>(
  typia.json.schema<RunsQuery, '3.1'>(),
  typia.createValidate<RunsQuery>(),
);

/** One page of the known runs, newest first; the cursor is checked by the store, which issued it. */
export const runsEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/runs',
  operationId: 'list_runs',
  summary:
    'One page of the known runs, newest first, with their bindings and events counted (provd extension)',
  schema: 'runs',
  answerType: () => typia.json.schemas<[RunList], '3.1'>(),
  contract: runsQuery,
  kind: 'runs',
  params: ({ limit, cursor }) => ({ limit: limit ?? defaultPageLimit, cursor: cursor ?? null }),
});
