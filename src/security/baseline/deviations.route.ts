/** GET /v1/security/deviations on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityKinds } from '../security-kinds.js';
import type { BaselineVersionParam } from './baseline.js';
import type { SecurityDeviations } from './deviation.js';

// a query first folds what the behaviour rollup has not folded yet: after a long burst, that takes a while
const deviationsDeadlineMs = 60_000;

/** The query string of GET /v1/security/deviations. */
export interface DeviationsQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
  /** the baseline's name; default: the name of the most recently learned baseline */
  baseline?: Identifier;
  /** the baseline's version; default: the latest of that name */
  version?: BaselineVersionParam;
}

export const deviationsQuery = new ParamContract<DeviationsQuery>(
  typia.json.schema<DeviationsQuery, '3.1'>(),
  typia.createValidate<DeviationsQuery>(),
);

/** One page of a run's deviations from a baseline version; the cursor is checked by the store. */
export const deviationsEndpoint = queryEndpointOf<SecurityKinds>()({
  path: '/v1/security/deviations',
  operationId: 'list_deviations',
  summary: 'Deviations from the behaviour baseline',
  description:
    "One page of what the run did outside a learned baseline version, the most severe first: binaries it executed, path prefixes it read or wrote, destinations it connected to and DNS names it looked up that the baseline does not hold, and event types whose busiest window held more than the baseline's threshold. Each names the measure, the observed and expected values, the baseline's name and version, a severity (high when the policy flagged one of its events) and its basis: how many events, and the first event ids. Without `baseline`, the name of the most recently learned baseline is used, and the answer says so; with no baseline learned at all, `status` is `no_baseline`, `baseline` is null and the list is empty.",
  schema: 'security_deviations',
  answerType: () => typia.json.schemas<[SecurityDeviations], '3.1'>(),
  contract: deviationsQuery,
  kind: 'deviations',
  params: ({ run, baseline, version, limit, cursor }) => ({
    run,
    baseline: baseline ?? null,
    version: version ?? null,
    limit: limit ?? defaultPageLimit,
    cursor: cursor ?? null,
  }),
  deadlineMs: deviationsDeadlineMs,
});
