/**
 * Reading an agent's payload into a HookEvent: the fields every agent shares (typia-checked per
 * event, unknown fields allowed and kept) and the tool-call key of agents that give no call id.
 */
import { canonicalJson } from '../model/canonical-json.js';
import { hash } from 'node:crypto';
import type { SchemaContract } from '../shared/schema/schema-contract.js';
import type { HookEvent, HookEventKind, HookRefusal } from './hook-event.js';

/** Longest prompt or assistant message read (a longer one is refused 400, never cut silently). */
export const maxHookTextChars = 1024 * 1024;

/** Checks `payload` with `contract`; the refusal names the field. */
export function checked<T>(contract: SchemaContract<T>, payload: unknown): T | HookRefusal {
  const result = contract.check(payload);
  return result.ok ? result.value : { field: result.failure.field, message: result.failure.message };
}

/** An event with nothing but its kind and the fields every agent sends. */
export function baseEvent(
  agent: string,
  kind: HookEventKind,
  payload: Record<string, unknown> & {
    session_id: string;
    hook_event_name: string;
    cwd?: string | undefined;
  },
): HookEvent {
  return {
    agent,
    kind,
    native_event: payload.hook_event_name,
    session_id: payload.session_id,
    cwd: payload.cwd ?? null,
    tool_name: null,
    tool_input: null,
    tool_use_id: null,
    tool_call_key: null,
    tool_response: null,
    duration_ms: null,
    failed: false,
    prompt: null,
    assistant_message: null,
    payload,
  };
}

/**
 * The key of a tool call for agents that give no id (Gemini): `g_` and 24 hex digits of the
 * sha256 of the canonical JSON of `{tool_name, tool_input}`. BeforeTool and AfterTool of one call
 * carry the same name and input, so they meet on it; the store numbers calls that share a key
 * within a run (`<key>-1`, `<key>-2`, ...), so the id is stable and unique per call.
 */
export function toolCallKey(toolName: string, toolInput: Record<string, unknown>): string {
  const digest = hash('sha256', canonicalJson({ tool_name: toolName, tool_input: toolInput }), 'hex');
  return `g_${digest.slice(0, 24)}`;
}

/** A text field longer than provd reads, refused by name. */
export function overlongText(fields: Record<string, string | null>): HookRefusal | null {
  for (const [field, text] of Object.entries(fields))
    if (text !== null && text.length > maxHookTextChars)
      return { field, message: `${field} is longer than ${maxHookTextChars} characters` };
  return null;
}
