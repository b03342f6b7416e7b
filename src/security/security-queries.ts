/**
 * The store query kinds of the security domain: the main thread sends them through its
 * StoreClient, security-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { AuditAssociations, AuditAssociationsParams } from './audit/audit-associations.query.js';
import type { Baseline, BaselineList } from './baseline/baseline.js';
import type { BaselinesParams } from './baseline/baseline-list.query.js';
import type { BaselineParams, LearnParams } from './baseline/baselines.query.js';
import type { SecurityDeviations } from './baseline/deviation.js';
import type { DeviationsParams } from './baseline/deviations.query.js';
import type { Enforcement } from './responses/enforcement.js';
import type { ResponsesParams, SecurityResponses } from './responses/responses.query.js';
import type { RisksParams, SecurityRisks } from './risks.query.js';
import type { Signals, SignalsParams } from './signals/signals.query.js';

export type SecurityQueries = {
  risks: QuerySpec<RisksParams, SecurityRisks>;
  responses: QuerySpec<ResponsesParams, SecurityResponses>;
  auditAssociations: QuerySpec<AuditAssociationsParams, AuditAssociations>;
  /** Records a kill provd carried out (a write). */
  enforce: QuerySpec<Enforcement, Record<string, never>>;
  signals: QuerySpec<SignalsParams, Signals>;
  /** Learns a new version of a baseline (a write). */
  learnBaseline: QuerySpec<LearnParams, Baseline>;
  baselines: QuerySpec<BaselinesParams, BaselineList>;
  baseline: QuerySpec<BaselineParams, Baseline>;
  deviations: QuerySpec<DeviationsParams, SecurityDeviations>;
};
