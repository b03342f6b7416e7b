/** The answer of GET /v1/graph/explain (`provenance.explain/v1`): a node and its causal path to its run. */
import type { Count, DateTimeText, Ratio } from '../../shared/schema/wire-types.js';
import type { EvidenceLevel } from '../../model/codes.js';
import type { TelemetryEvent } from '../../telemetry/event-json.js';
import type { ToolCallAccount } from './tool-call-account.js';

/** What a node of the causal graph is. */
export type ExplainNodeKind =
  'run' | 'tool_call' | 'process' | 'event' | 'file' | 'artifact' | 'file_effect' | 'risk';

/** One node: what it is, when, how well it is evidenced, and the graph object that records it. */
export interface ExplainNode {
  kind: ExplainNodeKind;
  /** Its id as explain takes it back: an event id, a process key (exec_id or tgid), a tool call id, a path, an object hash, a risk id. */
  id: string;
  /** Null for an event no binding has claimed. */
  run_id: string | null;
  /** One line a person reads. */
  label: string;
  time: DateTimeText | null;
  evidence_level: EvidenceLevel | null;
  /** The object that records it: the event_batch sealing an event, the tool_call, artifact, file_effect or run object. */
  object_hash: string | null;
  /** The event record, for an event node. */
  event?: TelemetryEvent;
}

/** How a step's node follows from the node before it. */
export interface ExplainBasis {
  /** judged: risk → the event its policy decision judged; performed_by: event → its process; child_of: process → the process that started it (exec lineage); attributed_to: → the tool call, through a binding; part_of: tool call → run; output_of / effect_of: artifact or file effect → its tool call; touched_by: file → an event or effect on it. */
  relation:
    | 'judged'
    | 'performed_by'
    | 'child_of'
    | 'attributed_to'
    | 'part_of'
    | 'output_of'
    | 'effect_of'
    | 'touched_by';
  /** How the edge is known: `policy:<policy>` (the policy that decided), `process_identity`, `exec_lineage`, a correlation tier (`process`, `cgroup`, `container`, `pid`), `binding`, `recorded` (the daemon's own record), `path`. */
  method: string;
  confidence: Ratio | null;
  evidence_level: EvidenceLevel | null;
  binding_id: string | null;
  /** The object that holds the edge (a binding, a tool call, an artifact, the sealing batch). */
  object_hash: string | null;
}

/** One step up the path: the node reached and why. */
export interface ExplainStep {
  basis: ExplainBasis;
  node: ExplainNode;
}

export interface ExplainResult {
  schema_version: 'provenance.explain/v1';
  node: ExplainNode;
  /** From the node up to its run (the run last); shorter when a link is unknown, and `complete` says so. */
  path: ExplainStep[];
  /** True when the path reaches the run. */
  complete: boolean;
  /** Why the path stops early, when it does. */
  incomplete_reason: string | null;
  /** For a file: the events and effects that touched it, earliest first (at most 20; the path goes through the first). */
  touches: ExplainNode[];
  /** How many touched it in all. */
  touch_count: Count;
  /** Other nodes the same id names (a reused pid, a tool call id in several runs); the latest is explained. */
  other_matches: Count;
  /** For an agent's hook tool call: its decision, input and result, and why each of its events belongs to it. */
  tool_call?: ToolCallAccount;
}
