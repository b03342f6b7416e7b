/**
 * The security domain on the store thread: its queries, registered with the store actor as one
 * module. The policy's decisions are written by the telemetry commits, in the transaction of
 * their events (decisions.ts, lent to the telemetry module by the store worker); verify checks
 * them (verifyPolicyLinks, lent to the provenance module); the values the signals count are
 * folded in with the telemetry module's process rollup (signalFolds, lent to it the same way),
 * which lends back its catch-up.
 */
import type { RollupFold } from '../telemetry/timeline/process-rollup.js';
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import { listAuditAssociations } from './audit/audit-associations.query.js';
import { insertEnforcement } from './responses/enforcement.js';
import { listResponses } from './responses/responses.query.js';
import { listRisks } from './risks.query.js';
import type { SecurityQueries } from './security-queries.js';
import { llmUsageFold } from './signals/llm-usage-values.js';
import { signalValuesFold } from './signals/signal-values.js';
import { readSignals } from './signals/signals.query.js';

export { insertVerdicts, settleDecisions } from './decisions.js';
export { verifyPolicyLinks } from './audit/verify-policy-links.js';

/** The per-run tables the signals read, folded in with the process rollup. */
export const signalFolds: readonly RollupFold[] = [signalValuesFold, llmUsageFold];

/** What the security module borrows from the telemetry module. */
export interface SecurityDeps {
  /** Folds every committed event into the process rollup and signalFolds. */
  catchUpRollup(): Promise<void>;
}

/** Starts the security module; its signals query borrows the telemetry module's catch-up. */
export function startSecurityStore(context: StoreContext, deps: SecurityDeps): StoreModule {
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
    signals: (params) =>
      readSignals(
        { readers: [context.reader(), context.reader()], catchUpRollup: () => deps.catchUpRollup() },
        params,
      ),
  };
  return { name: 'security', queries };
}
