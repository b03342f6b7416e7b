/**
 * `bind_scope`: POST /v1/telemetry/bind as a tool, under the trust boundary: whatever the input
 * asks, the binding is `ai_asserted` with a confidence of at most 0.5, so events it attributes are
 * `context_asserted`, never `kernel_correlated`.
 */
import { bindRequest, type BindRequest } from '../../telemetry/bind-request.js';
import { sourceDefaultConfidence } from '../../telemetry/binding.js';
import { bindContract } from '../../telemetry/bind.contract.js';
import { bodyTool } from '../body-tool.js';

/** The most an agent's own binding is trusted (docs/contract.md: ai_asserted 0.5). */
const maxConfidence = sourceDefaultConfidence.ai_asserted;

export const bindScope = bodyTool({
  name: 'bind_scope',
  title: 'Assert which processes belong to one of your tool calls',
  kind: 'write',
  endpoint: bindContract,
  body: bindRequest,
  notes: {
    binding_source: 'Ignored: a binding written by this tool is always `ai_asserted`.',
    confidence: `At most ${maxConfidence}: a higher value (or none) is stored as ${maxConfidence}.`,
  },
  force: (input: BindRequest) => ({
    ...input,
    binding_source: 'ai_asserted',
    confidence: Math.min(input.confidence ?? maxConfidence, maxConfidence),
  }),
  description:
    'Records your own claim that a ToolCallScope (`run_id`, `tool_call_id`) covers some system-side ' +
    'identity, so the runtime events of those processes are attributed to that tool call: give at ' +
    'least one of `process_id`, `container_id`, `cgroup_id`, `pid`, `root_pid`, and optionally the ' +
    'interval (`started_at`, `ended_at`, RFC 3339). The binding is always stored as `ai_asserted` with ' +
    `a confidence of at most ${maxConfidence}, whatever you ask: events it attributes are ` +
    '`context_asserted`, never `kernel_correlated`, and it never takes events from a binding the ' +
    'control plane or a harness made. It executes nothing and creates no system event. Use it when ' +
    'you start work the harness does not bind for you, so the timeline can tie it to your tool call.',
});
