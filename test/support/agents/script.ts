/**
 * The agent-neutral script a scripted model server answers from: an ordered list of turns, each a
 * set of tool calls (run by the agent, in parallel when more than one) or a final text. A request
 * the script has no turn for is answered with a final text, so an agent never waits on the server.
 */

/** The agents the harness drives, each through its own published CLI. */
export type AgentName = 'claude' | 'codex' | 'gemini';

/** A tool call in the script's own words; each agent's server maps it to that agent's tool. */
export type NeutralCall =
  | { readonly kind: 'shell'; readonly command: string }
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  | { readonly kind: 'edit'; readonly path: string; readonly oldText: string; readonly newText: string }
  | { readonly kind: 'read'; readonly path: string }
  /** An agent's own tool and input, sent as they are (Codex: `arguments` as JSON, or `patch` for apply_patch). */
  | { readonly kind: 'raw'; readonly name: string; readonly input: Readonly<Record<string, unknown>> };

/** One scripted tool call: its id (the agent's own tool-call id where the protocol has one) and what it does. */
export type ScriptedCall = NeutralCall & { readonly id: string };

export type Turn = { readonly calls: readonly ScriptedCall[] } | { readonly text: string };

export type Script = readonly Turn[];

/** The text the server answers with once the script has run out. */
export const scriptEndText = 'Done (the script has no more turns).';

/** A tool call as the agent's protocol carries it: its tool name and input. */
export interface AgentCall {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** A tool result the agent sent back to the model, as read from a recorded request. */
export interface ToolResult {
  /** The tool-call id it answers (Gemini: the function's id when it sends one, else its name). */
  readonly id: string;
  /** The result's text, as the model would read it. */
  readonly output: string;
  /** Whether the agent marked it an error (Claude's is_error); undefined where the protocol has no flag. */
  readonly isError: boolean | undefined;
}

/** A request the server received. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
  /** When the request's body had arrived (ms, performance.now()). */
  readonly receivedAtMs: number;
}
