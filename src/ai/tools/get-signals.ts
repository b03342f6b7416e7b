/** `get_signals`: GET /v1/signals as a tool. */
import { signalsContract, signalsQuery } from '../../security/signals/signals.contract.js';
import { queryTool } from '../query-tool.js';

export const getSignals = queryTool({
  name: 'get_signals',
  title: "A run's behaviour, cost, quality and security signals",
  endpoint: signalsContract,
  query: signalsQuery,
  description:
    'Summarises one run in four groups, each signal with its `basis` (the events or tool calls it ' +
    'rests on, to pass to explain): `behaviour` (events by type and rate, binaries executed and those ' +
    'never executed before, fan-out to files, destinations and DNS names), `cost` (LLM tokens and an ' +
    'estimated price per model, observed in TLS bodies apart from what a harness asserted), `quality` ' +
    '(tool-call failures, timeouts, non-zero exits, retries) and `security` (risks by severity and ' +
    'rule, coverage gaps). Use it first to get the shape of a run, then drill in with list_risks, ' +
    'list_events or explain. Counts cover what was captured: check `security.coverage_gaps` before ' +
    'concluding something did not happen. Input: `run`, the run id.',
});
