/**
 * GET /v1/telemetry/audit-associations and GET /api/audit/associations on the main thread: the
 * same page under both paths (the `/api` one is the unversioned alias the interface lists).
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityQueries } from '../security-queries.js';

/** The query string of the audit associations page. */
export interface AuditAssociationsQuery extends PageQuery {
  /** run identifier; without it, the associations of every run, in event order */
  run?: Identifier;
}

export const auditAssociationsQuery = new ParamContract<AuditAssociationsQuery>(
  typia.json.schema<AuditAssociationsQuery, '3.1'>(),
  typia.createValidate<AuditAssociationsQuery>(),
);

/** One page of audit associations; the cursor is checked by the store, which issued it. */
export function auditAssociationsRoute(store: QueryClient<SecurityQueries>): RouteHandler {
  return async ({ query }) => {
    const { run, limit, cursor } = auditAssociationsQuery.parse(query);
    const params = { run: run ?? null, limit: limit ?? defaultPageLimit, cursor: cursor ?? null };
    return { status: 200, body: await store.query('auditAssociations', params, { deadlineMs: 10_000 }) };
  };
}
