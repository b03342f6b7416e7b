/**
 * The read models on the store thread: the application context, the timeline, explain and search,
 * views over what the domains below stored, registered with the store actor as one module. They
 * write nothing; what they read of the write side's state comes in ViewsDeps.
 */
import type { StoreContext } from '../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../store/store-modules.js';
import type { BatchPlaces } from '../telemetry/batch-places.sql.js';
import type { SpoolStats } from '../telemetry/spool.sql.js';
import { viewsHandlers } from './views-kinds.js';

/** What the views read of the write side, lent by the telemetry module. */
export interface ViewsDeps {
  /** Folds every committed event into the process rollup; call before reading it. */
  catchUpRollup(): Promise<void>;
  /** The first position the rollup may not hold yet, or null when it holds every committed event. */
  unfoldedFrom(): bigint | null;
  /** The next position the store will hand out. */
  endSeq(): bigint;
  /** Where each sealed batch's events are (spares explain a read). */
  places: BatchPlaces;
  /** The events and bytes waiting in the spool now. */
  spoolStats(): SpoolStats;
}

/** The read models on the store thread: they give nothing and lend nothing. */
export const viewsModule = {
  name: 'views',
  participants: {},
  start: (context: StoreContext, deps: ViewsDeps): StartedModule<Record<string, never>> => ({
    queries: viewsHandlers(context, deps),
    lends: {},
  }),
} satisfies StoreModuleSpec<ViewsDeps, Record<string, never>, Record<string, never>>;
