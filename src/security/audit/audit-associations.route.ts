/**
 * GET /v1/telemetry/audit-associations and GET /api/audit/associations on the main thread: the
 * same page under both paths (the `/api` one is the unversioned alias the interface lists).
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { SecurityKinds } from '../security-kinds.js';
import type { AuditAssociations } from './audit-associations.sql.js';

/** The query string of the audit associations page. */
export interface AuditAssociationsQuery extends PageQuery {
  /** run identifier; without it, the associations of every run, in event order */
  run?: Identifier;
}

export const auditAssociationsQuery = new ParamContract<AuditAssociationsQuery>(
  typia.json.schema<AuditAssociationsQuery, '3.1'>(),
  typia.createValidate<AuditAssociationsQuery>(),
);

const description =
  'One page of policy decisions with what each ties together: the event judged (its hash when judged and now), the risk and the response derived from it, the tool call and binding that attributed the event, and the sealed event_batch object whose Merkle root covers it. Of one run, or without `run` of every run, in event order. GET /v1/graph/verify checks these links.';

/** One page of audit associations, under `path`; the cursor is checked by the store, which issued it. */
const auditAssociationsAt = (path: string, operationId: string, summary: string) =>
  queryEndpointOf<SecurityKinds>()({
    path,
    operationId,
    summary,
    description,
    schema: 'audit_associations',
    answerType: () => typia.json.schemas<[AuditAssociations], '3.1'>(),
    contract: auditAssociationsQuery,
    kind: 'auditAssociations',
    params: ({ run, limit, cursor }) => ({
      run: run ?? null,
      limit: limit ?? defaultPageLimit,
      cursor: cursor ?? null,
    }),
  });

export const auditAssociationsEndpoint = auditAssociationsAt(
  '/v1/telemetry/audit-associations',
  'get_audit_associations',
  'Audit associations of a run',
);

/** The unversioned alias the interface lists. */
export const apiAuditAssociationsEndpoint = auditAssociationsAt(
  '/api/audit/associations',
  'api_audit_associations',
  'Audit associations (the unversioned alias of /v1/telemetry/audit-associations)',
);
