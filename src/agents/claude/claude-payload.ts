/**
 * Claude Code's hook payloads (shared by Codex, whose hooks.json follows Claude's): every payload
 * has session_id, hook_event_name and cwd; tool events add tool_name, tool_input and tool_use_id;
 * PostToolUse adds tool_response and duration_ms; UserPromptSubmit has prompt, Stop
 * last_assistant_message. Unknown fields are allowed (kept in the stored payload).
 */
import typia, { type tags } from 'typia';
import { SchemaContract } from '../../shared/schema/schema-contract.js';
import type { HookEvent, HookEventKind, HookId, HookPath, HookRefusal } from '../hook-event.js';
import { baseEvent, checked, overlongText } from '../hook-fields.js';

/** The fields every Claude-shaped payload has. */
export interface ClaudeBasePayload {
  session_id: HookId;
  hook_event_name: HookId;
  cwd?: HookPath;
  transcript_path?: HookPath;
}

/** PreToolUse (and the tool fields of PostToolUse). */
export interface ClaudeToolPayload extends ClaudeBasePayload {
  tool_name: HookId;
  tool_input: Record<string, unknown>;
  tool_use_id: HookId;
}

/** PostToolUse and PostToolUseFailure. */
export interface ClaudePostToolPayload extends ClaudeToolPayload {
  tool_response?: unknown;
  /** PostToolUseFailure's error. */
  error?: unknown;
  duration_ms?: number & tags.Type<'uint32'>;
}

export interface ClaudePromptPayload extends ClaudeBasePayload {
  prompt: string;
}

export interface ClaudeStopPayload extends ClaudeBasePayload {
  last_assistant_message?: string;
}

const base = new SchemaContract<ClaudeBasePayload>(
  typia.json.schema<ClaudeBasePayload, '3.1'>(),
  typia.createValidate<ClaudeBasePayload>(),
  'hook payload',
);
const tool = new SchemaContract<ClaudeToolPayload>(
  typia.json.schema<ClaudeToolPayload, '3.1'>(),
  typia.createValidate<ClaudeToolPayload>(),
  'hook payload',
);
const postTool = new SchemaContract<ClaudePostToolPayload>(
  typia.json.schema<ClaudePostToolPayload, '3.1'>(),
  typia.createValidate<ClaudePostToolPayload>(),
  'hook payload',
);
const prompt = new SchemaContract<ClaudePromptPayload>(
  typia.json.schema<ClaudePromptPayload, '3.1'>(),
  typia.createValidate<ClaudePromptPayload>(),
  'hook payload',
);
const stop = new SchemaContract<ClaudeStopPayload>(
  typia.json.schema<ClaudeStopPayload, '3.1'>(),
  typia.createValidate<ClaudeStopPayload>(),
  'hook payload',
);

/** The kind of each Claude event name provd gives meaning to; any other is kept as `other`. */
const kinds: Readonly<Record<string, HookEventKind>> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'user_prompt',
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  PostToolUseFailure: 'post_tool_use',
  Stop: 'stop',
  SessionEnd: 'session_end',
};

/** Reads a Claude-shaped payload for `agent` (claude, codex). */
export function readClaudeShaped(agent: string, payload: Record<string, unknown>): HookEvent | HookRefusal {
  const head = checked(base, payload);
  if ('message' in head) return head;
  const kind = kinds[head.hook_event_name] ?? 'other';
  const event = baseEvent(agent, kind, { ...payload, ...head });
  switch (kind) {
    case 'pre_tool_use': {
      const call = checked(tool, payload);
      if ('message' in call) return call;
      return {
        ...event,
        tool_name: call.tool_name,
        tool_input: call.tool_input,
        tool_use_id: call.tool_use_id,
      };
    }
    case 'post_tool_use': {
      const call = checked(postTool, payload);
      if ('message' in call) return call;
      const failed = head.hook_event_name === 'PostToolUseFailure' || call.error !== undefined;
      return {
        ...event,
        tool_name: call.tool_name,
        tool_input: call.tool_input,
        tool_use_id: call.tool_use_id,
        tool_response: call.tool_response ?? call.error ?? null,
        duration_ms: call.duration_ms ?? null,
        failed,
      };
    }
    case 'user_prompt': {
      const asked = checked(prompt, payload);
      if ('message' in asked) return asked;
      return overlongText({ prompt: asked.prompt }) ?? { ...event, prompt: asked.prompt };
    }
    case 'stop': {
      const stopped = checked(stop, payload);
      if ('message' in stopped) return stopped;
      const message = stopped.last_assistant_message ?? null;
      return overlongText({ last_assistant_message: message }) ?? { ...event, assistant_message: message };
    }
    default:
      return event;
  }
}
