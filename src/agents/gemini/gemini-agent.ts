/**
 * Gemini CLI: BeforeTool / AfterTool carry tool_name and tool_input but no tool-call id, so provd
 * keys a call by its name and input (hook-fields.ts `toolCallKey`) and numbers calls sharing a key;
 * BeforeAgent carries the prompt, AfterAgent the answer (`prompt_response`). A deny answers
 * `{"decision":"deny","reason":...}`; Gemini has no ask, so an ask is a deny saying approval is needed.
 */
import { geminiPayloadType } from '../hook-payload-schema.js';
import typia from 'typia';
import { SchemaContract } from '../../shared/schema/schema-contract.js';
import type { AgentHarness, HookEvent, HookEventKind, HookRefusal } from '../hook-event.js';
import { baseEvent, checked, overlongText, toolCallKey } from '../hook-fields.js';
import type { ClaudeBasePayload } from '../claude/claude-payload.js';

export interface GeminiToolPayload extends ClaudeBasePayload {
  tool_name: ClaudeBasePayload['session_id'];
  tool_input: Record<string, unknown>;
  tool_response?: unknown;
}

export interface GeminiAgentPayload extends ClaudeBasePayload {
  prompt?: string;
  prompt_response?: string;
}

const base = new SchemaContract<ClaudeBasePayload>(
  typia.json.schema<ClaudeBasePayload, '3.1'>(),
  typia.createValidate<ClaudeBasePayload>(),
  'hook payload',
);
const tool = new SchemaContract<GeminiToolPayload>(
  typia.json.schema<GeminiToolPayload, '3.1'>(),
  typia.createValidate<GeminiToolPayload>(),
  'hook payload',
);
const agentTurn = new SchemaContract<GeminiAgentPayload>(
  typia.json.schema<GeminiAgentPayload, '3.1'>(),
  typia.createValidate<GeminiAgentPayload>(),
  'hook payload',
);

const kinds: Readonly<Record<string, HookEventKind>> = {
  SessionStart: 'session_start',
  BeforeAgent: 'user_prompt',
  BeforeTool: 'pre_tool_use',
  AfterTool: 'post_tool_use',
  AfterAgent: 'stop',
  SessionEnd: 'session_end',
};

function readGemini(payload: Record<string, unknown>): HookEvent | HookRefusal {
  const head = checked(base, payload);
  if ('message' in head) return head;
  const kind = kinds[head.hook_event_name] ?? 'other';
  const event = baseEvent('gemini', kind, { ...payload, ...head });
  if (kind === 'pre_tool_use' || kind === 'post_tool_use') {
    const call = checked(tool, payload);
    if ('message' in call) return call;
    const response = kind === 'post_tool_use' ? (call.tool_response ?? null) : null;
    return {
      ...event,
      tool_name: call.tool_name,
      tool_input: call.tool_input,
      tool_call_key: toolCallKey(call.tool_name, call.tool_input),
      tool_response: response,
      failed:
        typeof response === 'object' && response !== null && 'error' in response && response.error != null,
    };
  }
  if (kind === 'user_prompt' || kind === 'stop') {
    const turn = checked(agentTurn, payload);
    if ('message' in turn) return turn;
    const prompt = kind === 'user_prompt' ? (turn.prompt ?? null) : null;
    const message = kind === 'stop' ? (turn.prompt_response ?? null) : null;
    return (
      overlongText({ prompt, prompt_response: message }) ?? { ...event, prompt, assistant_message: message }
    );
  }
  return event;
}

export const geminiAgent: AgentHarness = {
  name: 'gemini',
  payloadType: geminiPayloadType,
  read: readGemini,
  answer: (event, reply) => {
    if (event.kind !== 'pre_tool_use' || reply.verdict === null || reply.verdict === 'allow') return {};
    const reason = reply.reason ?? '';
    return {
      decision: 'deny',
      reason: reply.verdict === 'ask' ? `${reason} (needs approval; Gemini hooks cannot ask)` : reason,
    };
  },
};
