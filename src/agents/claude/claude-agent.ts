/**
 * Claude Code: payloads as in claude-payload.ts; a PreToolUse is answered with
 * `hookSpecificOutput.permissionDecision` `deny` (with its reason) or `ask`. An allow answers `{}`:
 * Claude's own `allow` would also skip the user's permission prompts, which provd has no say in.
 */
import { claudePayloadType } from '../hook-payload-schema.js';
import type { AgentHarness, HookEvent, HookReply } from '../hook-event.js';
import { readClaudeShaped } from './claude-payload.js';

/** The answer of a Claude-shaped hook (Claude, Codex): `{}` unless the gate denies or asks. */
export function claudeShapedAnswer(event: HookEvent, reply: HookReply): Record<string, unknown> {
  if (event.kind !== 'pre_tool_use' || reply.verdict === null || reply.verdict === 'allow') return {};
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: reply.verdict,
      permissionDecisionReason: reply.reason ?? '',
    },
  };
}

export const claudeAgent: AgentHarness = {
  name: 'claude',
  payloadType: claudePayloadType,
  read: (payload) => readClaudeShaped('claude', payload),
  answer: claudeShapedAnswer,
};
