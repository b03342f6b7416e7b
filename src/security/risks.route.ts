/** GET /v1/security/risks on the main thread: check parameters, forward the store's bytes. */
import { queryEndpointOf } from '../shared/http/query-route.js';
import { defaultPageLimit } from '../model/paging.js';
import type { SecurityKinds } from './security-kinds.js';
import { risksQuery, risksContract } from './risks.contract.js';

/** One page of a run's risks; the cursor is checked by the store, which issued it. */
export const risksEndpoint = queryEndpointOf<SecurityKinds>()({
  ...risksContract,
  summary: 'Security risks of a run',
  description:
    "One page of the run's risks: each a decision of the policy that was not a plain allow (deny, quarantine or kill, or allow with a detect-only advisory). First the gate's decisions on the run's agent tool calls (a PreToolUse hook), in the order decided, each with its tool call (`tool_call`: id, tool name, the hash of the sealed tool_call object) and no event; then its decisions on the run's events, in event order, each with that event as its evidence and its evidence level.",
  contract: risksQuery,
  kind: 'risks',
  params: ({ run, limit, cursor }) => ({ run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null }),
});
