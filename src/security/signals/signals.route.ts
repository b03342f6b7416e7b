/** GET /v1/signals on the main thread: check `run`, forward the store's bytes. */
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { SecurityKinds } from '../security-kinds.js';
import { signalsQuery, signalsContract } from './signals.contract.js';

/** What the answer holds, for the endpoint's description. */
const signalsDescription =
  'Four groups of signals of one run, each signal with its `basis`: the tables it was computed from, ' +
  'how, and the first events (`event_ids`, for /v1/graph/explain?event=) or tool calls it rests on. ' +
  '`behaviour`: events by type with rates per minute and the busiest 10 s window, binaries executed ' +
  'and those no earlier run of the store executed, fan-out (processes, children of one parent, files, ' +
  'destinations, DNS names). `cost`: LLM tokens per model and an estimated price, `observed` in the ' +
  "bodies of the run's TLS responses and `asserted` by the harness in tool-call records (`llm_usage`), " +
  'kept apart. `quality`: tool-call failures, timeouts, non-zero exits and retries; process exits by ' +
  'code. `security`: risks by severity, decision and rule; coverage gaps of the run and gaps of no run ' +
  'during its span. Lists are bounded as `bounds` says.';

// the signals read the process rollup caught up first: after a burst of ingest that takes a while
const signalsDeadlineMs = 60_000;

/** A run's signals. */
export const signalsEndpoint = queryEndpointOf<SecurityKinds>()({
  ...signalsContract,
  summary: 'Behaviour, cost, quality and security signals of a run, each with its basis',
  description: signalsDescription,
  contract: signalsQuery,
  kind: 'signals',
  params: ({ run }) => ({ run }),
  deadlineMs: signalsDeadlineMs,
});
