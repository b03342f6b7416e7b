/**
 * The security domain on the store thread: its queries, registered with the store actor as one
 * module. The policy's decisions are written by the telemetry commits, in the transaction of
 * their events (decisions.sql.ts, lent to the telemetry module by the store worker); verify checks
 * them (verifyPolicyLinks, lent to the provenance module); the values the signals count and the
 * behaviour the baselines measure are folded in with the telemetry module's process rollup
 * (rollupFolds, lent to it the same way), which lends back its catch-up.
 */
import type { RollupFold } from '../telemetry/process-rollup.sql.js';
import type { StoreContext } from '../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../store/store-modules.js';
import type { TelemetryDeps } from '../telemetry/telemetry-store.sql.js';
import type { ProvenanceDeps } from '../provenance/provenance-kinds.js';
import { securityHandlers, type SecurityDeps } from './security-kinds.js';
import { behaviourFold } from './baseline/behaviour-rollup.sql.js';
import { llmUsageFold } from './signals/llm-usage-values.sql.js';
import { signalValuesFold } from './signals/signal-values.sql.js';

import { insertVerdicts, settleDecisions } from './decisions.sql.js';
import { verifyPolicyLinks } from './audit/verify-policy-links.sql.js';
import { verifyToolCallDecisions } from './audit/verify-tool-call-decisions.sql.js';
import { insertToolCallDecision } from './tool-call-decisions.sql.js';

/** The per-run tables the signals and the baselines read, folded in with the process rollup. */
const rollupFolds: readonly RollupFold[] = [signalValuesFold, llmUsageFold, behaviourFold];

/** What the security module gives: its parts in the telemetry commits and rollup, and in verify. */
type SecurityParticipants = TelemetryDeps & Pick<ProvenanceDeps, 'runChecks' | 'recordToolCallDecision'>;

/**
 * The security domain on the store thread. Its participants: the policy's decisions, written by the
 * telemetry commits in the transaction of their events and settled when spooled events join a run;
 * the signal values and behaviour folded in with the process rollup; the gate's decisions on an
 * agent's tool calls, written by the hook write in the transaction of the call's object; verify's
 * check of the decisions and kills. Its signals, baseline and deviations queries borrow the rollup's catch-up.
 */
export const securityModule = {
  name: 'security',
  participants: {
    recordVerdicts: insertVerdicts,
    settleDecisions,
    rollupFolds,
    recordToolCallDecision: insertToolCallDecision,
    runChecks: [verifyPolicyLinks, verifyToolCallDecisions],
  },
  start: (context: StoreContext, deps: SecurityDeps): StartedModule<Record<string, never>> => ({
    queries: securityHandlers(context, deps),
    lends: {},
  }),
} satisfies StoreModuleSpec<SecurityDeps, SecurityParticipants, Record<string, never>>;
