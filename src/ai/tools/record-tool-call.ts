/**
 * `record_tool_call`: POST /v1/record as a tool, under the trust boundary: it always sends
 * `execute: false`, so the daemon stores the tool call as `asserted` and runs nothing.
 */
import { recordRequest, type RecordRequest } from '../../provenance/record/record-request.js';
import { recordContract } from '../../provenance/record/record.contract.js';
import { bodyTool } from '../body-tool.js';

export const recordToolCall = bodyTool({
  name: 'record_tool_call',
  title: 'Record a tool call you made (asserted, not executed)',
  kind: 'write',
  endpoint: recordContract,
  body: recordRequest,
  notes: {
    execute: 'Ignored: this tool never runs the command; the tool call is stored as `asserted`.',
    cwd: 'The working directory you ran it in, as you state it (absolute).',
    timeout_ms: 'Ignored with execute false; accepted for the same shape as POST /v1/record.',
  },
  force: (input: RecordRequest) => ({ ...input, execute: false }),
  description:
    'Records a tool call you made in a run as application-side context: the `command` with its ' +
    '`args` (no shell text), optionally its `run_id` and `tool_call_id` (new ids are made when ' +
    'absent and returned) and the LLM token usage you assert for it (`llm_usage`). It is stored with ' +
    '`status: "asserted"` and `execute: false` whatever the input says: the daemon runs nothing, ' +
    'records no process or file effect and creates no system event, so the record is your claim, ' +
    'shown as `context_asserted`, never independent evidence. A `tool_call_id` already used in the ' +
    'run is refused (`tool_call_exists`). Use it so the timeline and signals show the tool calls you ' +
    'made; what the processes really did comes from the sensor.',
});
