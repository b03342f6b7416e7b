/** GET /v1/security/deviations on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityQueries } from '../security-queries.js';
import type { BaselineVersionParam } from './baseline.js';

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
export function deviationsRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { run, baseline, version, limit, cursor } = deviationsQuery.parse(query);
    const params = {
      run,
      baseline: baseline ?? null,
      version: version ?? null,
      limit: limit ?? defaultPageLimit,
      cursor: cursor ?? null,
    };
    return {
      status: 200,
      body: await store.query('deviations', params, { deadlineMs: deviationsDeadlineMs }),
    };
  };
}
