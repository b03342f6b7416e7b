/**
 * The security domain on the store thread: the risk, baseline and deviation queries, registered
 * with the store actor as one module, and the behaviour rollup those read. The policy's decisions
 * are written by the telemetry commits, in the transaction of their events (insertVerdicts, lent to
 * the telemetry module by the store worker).
 */
import { PositionRollup } from '../store/position-rollup.js';
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import { behaviourRollup } from './baseline/behaviour-rollup.js';
import { listBaselines } from './baseline/baseline-list.query.js';
import { getBaseline, learnBaseline } from './baseline/baselines.query.js';
import { listDeviations } from './baseline/deviations.query.js';
import { listRisks } from './risks.query.js';
import type { SecurityQueries } from './security-queries.js';

export { insertVerdicts } from './risks.query.js';

/** What other domains lend the security module, wired by the store worker. */
export interface SecurityDeps {
  /** The next event position to be handed out (the telemetry module's). */
  endSeq: () => bigint;
}

export async function startSecurityStore(context: StoreContext, deps: SecurityDeps): Promise<StoreModule> {
  const { writer, writes, formatVersion } = context;
  const rollup = new PositionRollup(
    writer,
    writes,
    deps.endSeq,
    () => context.activeQueries(),
    behaviourRollup,
  );
  await rollup.start();
  const json = async <T>(answer: Promise<T>): Promise<string> => JSON.stringify(await answer);
  const queries: QueryHandlers<SecurityQueries> = {
    risks: (params) => json(listRisks(context.reader(), params, formatVersion)),
    learn_baseline: async (params) => {
      await rollup.catchUp();
      return json(writes.run(() => learnBaseline(writer, params)));
    },
    baselines: (params) => json(listBaselines(context.reader(), params, formatVersion)),
    baseline: (params) => json(getBaseline(context.reader(), params)),
    deviations: async (params) => {
      await rollup.catchUp();
      return json(listDeviations(context.reader(), params, formatVersion));
    },
  };
  return { name: 'security', queries, stop: () => rollup.stop() };
}
