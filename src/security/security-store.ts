/**
 * The security domain on the store thread: the risk queries, registered with the store actor as
 * one module. The policy's decisions are written by the telemetry commits, in the transaction of
 * their events (insertVerdicts, lent to the telemetry module by the store worker).
 */
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import { listRisks } from './risks.query.js';
import type { SecurityQueries } from './security-queries.js';

export { insertVerdicts } from './risks.query.js';

export function startSecurityStore(context: StoreContext): StoreModule {
  const queries: QueryHandlers<SecurityQueries> = {
    risks: async (params) => JSON.stringify(await listRisks(context.reader(), params, context.formatVersion)),
  };
  return { name: 'security', queries };
}
