/**
 * The store query kinds of the security domain: the main thread sends them through its
 * StoreClient; their kind map, SecurityKinds, is read from these handlers' types.
 */
import { jsonText } from '../store/json-text.js';
import type { KindsOf, StoreContext } from '../store/store-module.js';
import { listAuditAssociations, type AuditAssociationsParams } from './audit/audit-associations.sql.js';
import { listBaselines, type BaselinesParams } from './baseline/baseline-list.sql.js';
import {
  getBaseline,
  learnBaseline,
  type BaselineParams,
  type LearnParams,
} from './baseline/baselines.sql.js';
import { listDeviations, type DeviationsParams } from './baseline/deviations.sql.js';
import { insertEnforcement, type Enforcement } from './responses/enforcement.sql.js';
import { listResponses, type ResponsesParams } from './responses/responses.js';
import { listRisks, type RisksParams } from './risks.js';
import { readSignals, type SignalsParams } from './signals/read-signals.js';

/** What the security module borrows from the telemetry module. */
export interface SecurityDeps {
  /** Folds every committed event into the process rollup and rollupFolds. */
  catchUpRollup(): Promise<void>;
  /** The next position the store will hand out: the judged-event pages stop probing there. */
  endSeq(): bigint;
}

/** The security domain's handlers, by kind; signals, baselines and deviations borrow the rollup's catch-up. */
export function securityHandlers(context: StoreContext, deps: SecurityDeps) {
  const { formatVersion, writer, writes } = context;
  return {
    risks: async (params: RisksParams) =>
      jsonText(await listRisks(context.reader(), params, formatVersion, deps.endSeq())),
    responses: async (params: ResponsesParams) =>
      jsonText(await listResponses(context.reader(), params, formatVersion, deps.endSeq())),
    auditAssociations: async (params: AuditAssociationsParams) =>
      jsonText(await listAuditAssociations(context.reader(), params, formatVersion, deps.endSeq())),
    /** Records a kill provd carried out (a write). */
    enforce: async (params: Enforcement) => {
      await writes.run(() => insertEnforcement(writer, params));
      return jsonText<Record<string, never>>({});
    },
    signals: (params: SignalsParams) =>
      readSignals(
        { readers: [context.reader(), context.reader()], catchUpRollup: () => deps.catchUpRollup() },
        params,
      ),
    /** Learns a new version of a baseline (a write). */
    learnBaseline: async (params: LearnParams) => {
      await deps.catchUpRollup();
      return jsonText(await writes.run(() => learnBaseline(writer, params)));
    },
    baselines: async (params: BaselinesParams) =>
      jsonText(await listBaselines(context.reader(), params, formatVersion)),
    baseline: async (params: BaselineParams) => jsonText(await getBaseline(context.reader(), params)),
    deviations: async (params: DeviationsParams) => {
      await deps.catchUpRollup();
      return jsonText(await listDeviations(context.reader(), params, formatVersion));
    },
  };
}

/** The security domain's kinds: params and result of each, from its handler. */
export type SecurityKinds = KindsOf<ReturnType<typeof securityHandlers>>;
