/** GET /v1/telemetry/correlations on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { TelemetryKinds } from './telemetry-kinds.js';
import type { TelemetryCorrelations } from './correlations.sql.js';

/** The query string of GET /v1/telemetry/correlations. */
export interface CorrelationsQuery {
  /** run identifier */
  run: Identifier;
  /** event id: explain this event's correlation instead of listing the run's bindings */
  event?: Identifier;
}

/** How the correlations route reads its query, and the endpoint's OpenAPI parameters. */
export const correlationsQuery = new ParamContract<CorrelationsQuery>(
  typia.json.schema<CorrelationsQuery, '3.1'>(),
  typia.createValidate<CorrelationsQuery>(),
);

/** The correlation basis of one event, or every binding of the run with its events by tier. */
export const correlationsEndpoint = queryEndpointOf<TelemetryKinds>()({
  path: '/v1/telemetry/correlations',
  operationId: 'explain_correlations',
  summary: 'Basis for tying runtime events to a ToolCallScope',
  schema: 'telemetry_correlations',
  answerType: () => typia.json.schemas<[TelemetryCorrelations], '3.1'>(),
  contract: correlationsQuery,
  kind: 'correlations',
  params: ({ run, event }) => ({ run, event: event ?? null }),
});
