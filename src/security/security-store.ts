/**
 * The security domain on the store thread: its queries, registered with the store actor as one
 * module. The policy's decisions are written by the telemetry commits, in the transaction of
 * their events (decisions.ts, lent to the telemetry module by the store worker); verify checks
 * them (verifyPolicyLinks, lent to the provenance module).
 */
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import { listAuditAssociations } from './audit/audit-associations.query.js';
import { insertEnforcement } from './responses/enforcement.js';
import { listResponses } from './responses/responses.query.js';
import { listRisks } from './risks.query.js';
import type { SecurityQueries } from './security-queries.js';

export { insertVerdicts, settleDecisions } from './decisions.js';
export { verifyPolicyLinks } from './audit/verify-policy-links.js';

export function startSecurityStore(context: StoreContext): StoreModule {
  const { formatVersion } = context;
  const queries: QueryHandlers<SecurityQueries> = {
    risks: async (params) => JSON.stringify(await listRisks(context.reader(), params, formatVersion)),
    responses: async (params) => JSON.stringify(await listResponses(context.reader(), params, formatVersion)),
    auditAssociations: async (params) =>
      JSON.stringify(await listAuditAssociations(context.reader(), params, formatVersion)),
    enforce: async (params) => {
      await context.writes.run(() => insertEnforcement(context.writer, params));
      return '{}';
    },
  };
  return { name: 'security', queries };
}
