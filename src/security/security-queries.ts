/**
 * The store query kinds of the security domain: the main thread sends them through its
 * StoreClient, security-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { RisksParams, SecurityRisks } from './risks.query.js';
import type { Signals, SignalsParams } from './signals/signals.query.js';

export type SecurityQueries = {
  risks: QuerySpec<RisksParams, SecurityRisks>;
  signals: QuerySpec<SignalsParams, Signals>;
};
