/**
 * explain's account of a hook tool call (`tool_call` of GET /v1/graph/explain's answer), as the CLI
 * reads it and the store writes it (tool-call-account.sql.ts): the wire contract alone, with no
 * store code.
 */
import type { HookDecision } from '../../provenance/hooks/hook-decision.js';
import type { Count, DateTimeText, Integer, Ratio } from '../../shared/schema/wire-types.js';

/** One process up the chain from an event to its tool call's shell. */
export interface ProcessLink {
  tgid: Integer;
  comm: string | null;
  /** Its first exec's argv (joined, at most 300 characters); null when its exec was not seen. */
  argv: string | null;
}

/** An event tied to the tool call, and why. */
export interface TiedEvent {
  event_id: string;
  type: string;
  time: DateTimeText;
  tgid: Integer | null;
  /** An exec's argv, another event's path, when it has one (at most 300 characters). */
  subject: string | null;
  /** `hook_exec_match` (its process is the call's shell or below it) or `hook_path_time` (the agent wrote the call's path). */
  method: string;
  confidence: Ratio | null;
  evidence_level: string;
  binding_id: string | null;
  /** From the event's process up to the call's shell (the last); empty for a write by the agent. */
  chain: ProcessLink[];
}

/** An event more than one call fits, this one among them: tied to none. */
export interface AmbiguousEvent {
  event_id: string;
  type: string;
  time: DateTimeText;
  subject: string | null;
  method: string;
  confidence: Ratio | null;
  /** Every call it fits, this one included. */
  candidates: string[];
}

/** The kernel's account of one hook tool call. */
export interface ToolCallAccount {
  tool_name: string | null;
  status: string;
  /** The gate's decision on its PreToolUse, as sealed in its tool_call object. */
  decision: HookDecision | null;
  /** The tool's input and result as the agent's hooks gave them (null: not stored). */
  input: unknown;
  result: unknown;
  /** Its events, earliest first (at most 200). */
  events: TiedEvent[];
  event_count: Count;
  /** Events it is one of several candidates of (shells and writes; their children follow them). */
  ambiguous: AmbiguousEvent[];
  /** What the account lacks, in words. */
  missing: string[];
}
