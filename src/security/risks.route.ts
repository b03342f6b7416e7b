/** GET /v1/security/risks on the main thread: check parameters, forward the store's bytes. */
import typia from 'typia';
import { ParamContract } from '../shared/http/param-contract.js';
import { queryEndpointOf } from '../shared/http/query-route.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import { defaultPageLimit, type PageQuery } from '../model/paging.js';
import type { SecurityKinds } from './security-kinds.js';

/** The query string of GET /v1/security/risks. */
export interface RisksQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
}

export const risksQuery = new ParamContract<RisksQuery>(
  typia.json.schema<RisksQuery, '3.1'>(),
  typia.createValidate<RisksQuery>(),
);

/** One page of a run's risks; the cursor is checked by the store, which issued it. */
export const risksEndpoint = queryEndpointOf<SecurityKinds>()({
  path: '/v1/security/risks',
  operationId: 'list_risks',
  summary: 'Security risks of a run',
  description:
    "One page of the run's risks, in the order of their events: each a decision of the policy on one of the run's events that was not a plain allow (deny, quarantine or kill, or allow with a detect-only advisory), with that event as its evidence and its evidence level.",
  schema: 'security_risks',
  contract: risksQuery,
  kind: 'risks',
  params: ({ run, limit, cursor }) => ({ run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null }),
});
