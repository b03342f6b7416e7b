/** `list_risks`: GET /v1/security/risks as a tool. */
import { risksContract, risksQuery } from '../../security/risks.contract.js';
import { queryTool } from '../query-tool.js';

export const listRisks = queryTool({
  name: 'list_risks',
  title: "A run's risks: events the policy did not allow",
  endpoint: risksContract,
  query: risksQuery,
  description:
    "One page of a run's risks: every event of the run the policy judged `deny`, `quarantine` or " +
    '`kill` (reads of secrets, connections to a metadata address or a private network, privilege ' +
    'and ptrace attempts, custom rules), in event order, each with its rule, severity, decision, ' +
    'reason, the tool call, and its evidence (event ids with their evidence levels; a risk is never ' +
    'rated above its weakest link). Pass `next_cursor` back as `cursor` for the next page (`limit` ' +
    '1..1000, default 100). Use it to audit what an agent did that policy flags; follow up with ' +
    'explain (`risk` id). An empty list means no captured event matched a rule, not that nothing ' +
    'risky happened: coverage gaps are in get_signals.',
});
