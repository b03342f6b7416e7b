/**
 * The security domain on the store thread: its queries, registered with the store actor as one
 * module. The policy's decisions are written by the telemetry commits, in the transaction of
 * their events (decisions.sql.ts, lent to the telemetry module by the store worker); verify checks
 * them (verifyPolicyLinks, lent to the provenance module); the values the signals count and the
 * behaviour the baselines measure are folded in with the telemetry module's process rollup
 * (rollupFolds, lent to it the same way), which lends back its catch-up.
 */
import type { RollupFold } from '../telemetry/process-rollup.sql.js';
import type { StoreContext, StoreModule } from '../store/store-module.js';
import { securityHandlers } from './security-kinds.js';
import { behaviourFold } from './baseline/behaviour-rollup.sql.js';
import { llmUsageFold } from './signals/llm-usage-values.sql.js';
import { signalValuesFold } from './signals/signal-values.sql.js';

export { insertVerdicts, settleDecisions } from './decisions.sql.js';
export { verifyPolicyLinks } from './audit/verify-policy-links.sql.js';

/** The per-run tables the signals and the baselines read, folded in with the process rollup. */
export const rollupFolds: readonly RollupFold[] = [signalValuesFold, llmUsageFold, behaviourFold];

/** What the security module borrows from the telemetry module. */
export interface SecurityDeps {
  /** Folds every committed event into the process rollup and rollupFolds. */
  catchUpRollup(): Promise<void>;
  /** The next position the store will hand out: the judged-event pages stop probing there. */
  endSeq(): bigint;
}

/** Starts the security module; its signals, baseline and deviations queries borrow the telemetry module's catch-up. */
export function startSecurityStore(context: StoreContext, deps: SecurityDeps): StoreModule {
  return { name: 'security', queries: securityHandlers(context, deps) };
}
