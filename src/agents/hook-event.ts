/**
 * One model of an agent's hook event, whatever agent sent it: what provd stores as the run's
 * context and what the gate judges. Each agent's folder reads its own payload into this
 * (`<agent>/<agent>-agent.ts`); the payload itself is kept whole in `payload`, unknown fields
 * included, so nothing the agent said is dropped when it is stored.
 */
import type { IJsonSchemaCollection, tags } from 'typia';

/** What happened, in provd's words. `other`: an event provd keeps but gives no meaning to. */
export type HookEventKind =
  'session_start' | 'user_prompt' | 'pre_tool_use' | 'post_tool_use' | 'stop' | 'session_end' | 'other';

/** A session id, a tool name or a tool-call id as an agent gives it: printable, bounded. */
export type HookId = string & tags.MinLength<1> & tags.MaxLength<256> & tags.Pattern<'^[^\\u0000-\\u001f]*$'>;
/** A cwd or transcript path. */
export type HookPath = string & tags.MaxLength<4096> & tags.Pattern<'^[^\\u0000]*$'>;

/** A hook event read from an agent's payload. */
export interface HookEvent {
  agent: string;
  kind: HookEventKind;
  /** The agent's own event name (`PreToolUse`, `BeforeTool`, ...). */
  native_event: string;
  session_id: string;
  cwd: string | null;
  /** The tool, for tool events. */
  tool_name: string | null;
  /** The tool's input as the agent gave it (a JSON object), for tool events. */
  tool_input: Record<string, unknown> | null;
  /**
   * The agent's own id of the tool call; null where the agent gives none (Gemini): the store
   * then numbers calls of the same tool and input (hook-store.sql.ts, `tool_call_key`).
   */
  tool_use_id: string | null;
  /** For an agent without tool-call ids: `g_` and 24 hex digits of sha256 of the tool name and input. */
  tool_call_key: string | null;
  /** The tool's result, after it ran (PostToolUse, AfterTool). */
  tool_response: unknown;
  /** How long the tool ran, as the agent measured it; null when it says nothing. */
  duration_ms: number | null;
  /** True when the agent says the tool failed (PostToolUseFailure, an error in the response). */
  failed: boolean;
  /** The user's prompt (UserPromptSubmit, BeforeAgent). */
  prompt: string | null;
  /** The assistant's last message (Stop, AfterAgent). */
  assistant_message: string | null;
  /** The payload as the agent sent it. */
  payload: Record<string, unknown>;
}

/** What the gate decided about a PreToolUse, in provd's words. */
export type HookVerdict = 'allow' | 'deny' | 'ask';

/** The answer to an agent's hook, built by its folder (`answer`). */
export interface HookReply {
  verdict: HookVerdict | null;
  reason: string | null;
}

/** A payload that is not the agent's: the field it gets wrong and why. */
export interface HookRefusal {
  field: string;
  message: string;
}

/** One agent harness: how its payloads are read and how its hooks are answered. */
export interface AgentHarness {
  /** The path segment of its route (`/v1/hooks/<name>`). */
  name: string;
  /** Its payload's schema, for the OpenAPI document (hook-payload-schema.ts). */
  payloadType: () => IJsonSchemaCollection<'3.1'>;
  /** Reads a payload (a JSON object), or says which field is not the agent's. */
  read(payload: Record<string, unknown>): HookEvent | HookRefusal;
  /** The JSON the agent's hook prints (or its HTTP hook receives) for this event and verdict. */
  answer(event: HookEvent, reply: HookReply): Record<string, unknown>;
}

export function isRefusal(value: HookEvent | HookRefusal): value is HookRefusal {
  return 'message' in value && !('kind' in value);
}
