/**
 * The request bodies of POST /v1/hooks/{agent} as the OpenAPI document shows them: the fields
 * provd reads (which ones an event needs: docs/agents.md), any other field allowed and kept.
 * The checks themselves are each agent's (claude/claude-payload.ts, gemini/gemini-agent.ts).
 */
import typia, { type IJsonSchemaCollection, type tags } from 'typia';
import type { HookId, HookPath } from './hook-event.js';

/** A tool's input as the agent gives it: a JSON object. */
export interface ToolInput {
  [field: string]: unknown;
}

/** A Claude Code (or Codex) hook payload. */
export interface ClaudeHookPayload {
  session_id: HookId;
  hook_event_name: HookId;
  cwd?: HookPath;
  transcript_path?: HookPath;
  /** PreToolUse, PostToolUse. */
  tool_name?: HookId;
  tool_input?: ToolInput;
  tool_use_id?: HookId;
  /** PostToolUse. */
  tool_response?: unknown;
  duration_ms?: number & tags.Type<'uint32'>;
  /** UserPromptSubmit. */
  prompt?: string & tags.MaxLength<1048576>;
  /** Stop. */
  last_assistant_message?: string & tags.MaxLength<1048576>;
  [field: string]: unknown;
}

/** A Gemini CLI hook payload. */
export interface GeminiHookPayload {
  session_id: HookId;
  hook_event_name: HookId;
  cwd?: HookPath;
  transcript_path?: HookPath;
  /** BeforeTool, AfterTool. */
  tool_name?: HookId;
  tool_input?: ToolInput;
  /** AfterTool. */
  tool_response?: unknown;
  /** BeforeAgent. */
  prompt?: string & tags.MaxLength<1048576>;
  /** AfterAgent. */
  prompt_response?: string & tags.MaxLength<1048576>;
  [field: string]: unknown;
}

/** The body schema of POST /v1/hooks/claude and /v1/hooks/codex. */
export const claudePayloadType = (): IJsonSchemaCollection<'3.1'> =>
  typia.json.schemas<[ClaudeHookPayload], '3.1'>();

/** The body schema of POST /v1/hooks/gemini. */
export const geminiPayloadType = (): IJsonSchemaCollection<'3.1'> =>
  typia.json.schemas<[GeminiHookPayload], '3.1'>();
