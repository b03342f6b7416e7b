/** What every tool of the catalog is: the face a model sees, and the daemon request it stands for. */
import type { Checked } from '../shared/schema/schema-contract.js';
import type { JsonObject } from '../shared/schema/json-object.js';

/** The nine tool names of docs/contract.md "AI tools". */
export type ToolName =
  | 'verify_run'
  | 'explain'
  | 'get_signals'
  | 'get_timeline'
  | 'list_risks'
  | 'list_events'
  | 'evaluate_action'
  | 'bind_scope'
  | 'record_tool_call';

/** read: answers from stored evidence; gate: the policy preflight; write: stores asserted context. */
export type ToolKind = 'read' | 'gate' | 'write';

/** One HTTP request to the daemon, as a tool call becomes it. */
export interface DaemonRequest {
  method: 'GET' | 'POST';
  /** Path and query string, e.g. `/v1/security/risks?run=r1&limit=10`. */
  path: string;
  body?: JsonObject;
}

/** One tool: its model-facing definition and how a checked input becomes a daemon request. */
export interface AiTool {
  name: ToolName;
  /** A short human title (MCP `title`). */
  title: string;
  /** Written for a model: what it answers, when to use it, what it cannot prove. */
  description: string;
  kind: ToolKind;
  /** A self-contained JSON Schema (type object, no `$ref`) of the input. */
  inputSchema: JsonObject;
  /** A self-contained JSON Schema (type object; shared parts under `$defs`) of the daemon's 200 body. */
  outputSchema: JsonObject;
  /** The daemon request for `input`, or the first field it gets wrong; writes force the trust boundary here. */
  prepare(input: unknown): Checked<DaemonRequest>;
}
