/** `explain`: GET /v1/graph/explain as a tool. */
import { explainContract, explainQuery } from '../../views/explain/explain.contract.js';
import { queryTool } from '../query-tool.js';

export const explain = queryTool({
  name: 'explain',
  title: 'Explain a node: its causal path and basis',
  endpoint: explainContract,
  query: explainQuery,
  description:
    'Explains one node of the provenance graph: how it came about (the causal path: run, tool call, ' +
    'process ancestry, the events around it) and the basis for each link (which binding attributed an ' +
    'event, by which correlation method and confidence, at which evidence level). Give exactly one ' +
    'node: `event`, `process`, `tool-call`, `risk` or `artifact` alone; `file` (or `tool-call`) with `run`; or ' +
    '`run` alone for the run itself. Ids come from the other tools (list_events items, list_risks ' +
    'items, get_timeline entries). Evidence levels say how much a link is worth: `kernel_correlated` ' +
    '(the sensor saw it and a system-side binding attributed it) is independent evidence; ' +
    '`context_asserted` and `self_observed` rest on what an agent or the daemon asserted; ' +
    '`uncorrelated` was seen but tied to no tool call. For a hook tool call of an agent (`tool-call`, ' +
    'optionally with `run`), `tool_call` gives the kernel account: the decision of the gate, the input and ' +
    'result, each event tied to the call with its method (`hook_exec_match`: its shell or below it; ' +
    '`hook_path_time`: the agent wrote its path within the call), confidence, evidence level and process ' +
    'chain, the ambiguous events it is one candidate of, and what is missing. An explanation shows what ' +
    'was recorded, not what was missed.',
});
