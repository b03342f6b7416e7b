/**
 * Codex CLI: its hooks.json follows Claude's, and so do its payloads (shell calls as `Bash`,
 * patches as `apply_patch` with the patch in `tool_input.command`; `tool_use_id` is the model's
 * `call_id`) and its deny answer. Codex has no `ask`: a verdict of ask is answered as a deny whose
 * reason says approval is needed, so the call never runs unapproved.
 */
import { claudePayloadType } from '../hook-payload-schema.js';
import type { AgentHarness } from '../hook-event.js';
import { claudeShapedAnswer } from '../claude/claude-agent.js';
import { readClaudeShaped } from '../claude/claude-payload.js';

export const codexAgent: AgentHarness = {
  name: 'codex',
  payloadType: claudePayloadType,
  read: (payload) => readClaudeShaped('codex', payload),
  answer: (event, reply) =>
    claudeShapedAnswer(
      event,
      reply.verdict === 'ask'
        ? { verdict: 'deny', reason: `${reply.reason ?? ''} (needs approval; Codex hooks cannot ask)` }
        : reply,
    ),
};
