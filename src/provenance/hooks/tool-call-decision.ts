/**
 * The gate's decision on a tool call, as the hook write hands it to the security domain (which
 * stores it beside the policy's decisions on events: security/tool-call-decisions.sql.ts), in the
 * transaction that stores the tool call's object. The store worker wires the two.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { HookDecision } from './hook-decision.js';

/** A PreToolUse's decision, with the sealed tool_call object that records it. */
export interface ToolCallDecision {
  run_id: string;
  tool_call_id: string;
  /** The tool_call object's hash: its payload's `decision` is what verify checks the stored one against. */
  object_hash: string;
  decision: HookDecision;
  /** When the hook came (Unix ns). */
  decided_ns: bigint;
}

/** Stores a tool call's decision on the writer, inside the caller's transaction. */
export type RecordToolCallDecision = (
  connection: StoreConnection,
  decision: ToolCallDecision,
) => Promise<void>;
