/**
 * The read models on the store thread: the application context, the timeline, explain and search,
 * views over what the domains below stored, registered with the store actor as one module. They
 * write nothing; what they read of the write side's state comes in ViewsDeps.
 */
import type { StoreContext } from '../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../store/store-modules.js';
import { viewsHandlers, type ViewsDeps } from './views-kinds.js';

/** The read models on the store thread: they give nothing and lend nothing. */
export const viewsModule = {
  name: 'views',
  participants: {},
  start: (context: StoreContext, deps: ViewsDeps): StartedModule<Record<string, never>> => ({
    queries: viewsHandlers(context, deps),
    lends: {},
  }),
} satisfies StoreModuleSpec<ViewsDeps, Record<string, never>, Record<string, never>>;
