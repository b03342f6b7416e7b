/**
 * The security domain on the store thread: the risk and signal queries, registered with the store
 * actor as one module. The policy's decisions are written by the telemetry commits, in the
 * transaction of their events (insertVerdicts, lent to the telemetry module by the store worker);
 * the values the signals count are folded in with the telemetry module's process rollup
 * (signalFolds, lent to it the same way), which lends back its catch-up.
 */
import type { RollupFold } from '../telemetry/timeline/process-rollup.js';
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import { listRisks } from './risks.query.js';
import type { SecurityQueries } from './security-queries.js';
import { llmUsageFold } from './signals/llm-usage-values.js';
import { signalValuesFold } from './signals/signal-values.js';
import { readSignals } from './signals/signals.query.js';

export { insertVerdicts } from './risks.query.js';

/** The per-run tables the signals read, folded in with the process rollup. */
export const signalFolds: readonly RollupFold[] = [signalValuesFold, llmUsageFold];

/** What the security module borrows from the telemetry module. */
export interface SecurityDeps {
  /** Folds every committed event into the process rollup and signalFolds. */
  catchUpRollup(): Promise<void>;
}

/** Starts the security module; its signals query borrows the telemetry module's catch-up. */
export function startSecurityStore(context: StoreContext, deps: SecurityDeps): StoreModule {
  const queries: QueryHandlers<SecurityQueries> = {
    risks: async (params) => JSON.stringify(await listRisks(context.reader(), params, context.formatVersion)),
    signals: (params) =>
      readSignals(
        { readers: [context.reader(), context.reader()], catchUpRollup: () => deps.catchUpRollup() },
        params,
      ),
  };
  return { name: 'security', queries };
}
