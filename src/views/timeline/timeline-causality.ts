/**
 * The causality view of GET /v1/timeline (`provenance.timeline/v1`, `view: "causality"`): a run as
 * a tree, not a list. The run holds its tool calls (and one node for events no binding attributed);
 * a tool call holds its process lineage (processes by tgid, nested by ppid); a process holds its
 * first events. Every node counts its events by type, and every list is bounded: what a bound cuts
 * is counted in the node it was cut from (`omitted_children`, `omitted_events`), never dropped.
 */
import type { Count, DateTimeText, Integer } from '../../shared/schema/wire-types.js';
import type { EventType } from '../../model/event.js';
import type { EvidenceLevel } from '../../model/codes.js';
import type { TimelineToolCall } from './context-records.js';

/** A run's causality tree. */
export interface TimelineCausality {
  schema_version: 'provenance.timeline/v1';
  view: 'causality';
  run_id: string;
  /** True when loader and locale opens are listed and counted (`all=true`), each marked; false: left out. */
  all: boolean;
  /** The run's loader and locale opens, whether listed (`all=true`) or left out of every count and list. */
  loader_locale_opens: Count;
  /** The bounds the tree was cut at. */
  bounds: CausalityBounds;
  root: CausalityRunNode;
}

/** How much of each list the tree shows. */
export interface CausalityBounds {
  /** Tool call nodes under the run (the node of unattributed events comes on top). */
  tool_calls: Count;
  /** Process nodes under one tool call or one process. */
  processes_per_parent: Count;
  /** Levels of process nesting under a tool call. */
  process_depth: Count;
  /** Events listed under one process: its first ones. */
  events_per_process: Count;
}

/** Events counted by type; a type no event has is absent. */
export type CountsByEventType = { [type in EventType]?: Count };

/** A number of events, and the same events by type. */
export interface EventCounts {
  total: Count;
  by_type: CountsByEventType;
}

/** Child nodes a bound cut: how many, and the events they and everything under them hold. */
export interface CutNodes {
  count: Count;
  events: EventCounts;
}

/**
 * An event as the tree lists it: what it was, when, and how well it is evidenced, in one line. The
 * whole record is one request away (GET /v1/graph/explain?event=ID), and the table view lists them.
 */
export interface CausalityEvent {
  id: string;
  /** Capture instant, UTC with nanoseconds. */
  time: DateTimeText;
  type: EventType;
  evidence_level: EvidenceLevel;
  /** Who did what to what, as the table view's entries say it. */
  summary: string;
  /** True for a loader or locale open (listed only with `all=true`). */
  loader_locale: boolean;
}

/** The root: the run. */
export interface CausalityRunNode {
  node: 'run';
  run_id: string;
  /** Every event of the run. */
  counts: EventCounts;
  /** Tool calls by their first instant (recorded start, binding, or first event), then the unattributed node. */
  children: CausalityToolCallNode[];
  /** Tool calls past the bound (the latest ones). */
  omitted_children: CutNodes;
}

/** A tool call, or (`tool_call_id` null) the events no binding attributed to one. */
export interface CausalityToolCallNode {
  node: 'tool_call';
  tool_call_id: string | null;
  /** As POST /v1/record stored it; null when the tool call is known only from bindings or events. */
  tool_call: TimelineToolCall | null;
  /** Bindings naming the tool call. */
  bindings: Count;
  /** Capture times of its first and last events; null without events. */
  first_event: DateTimeText | null;
  last_event: DateTimeText | null;
  /** Every event attributed to the tool call. */
  counts: EventCounts;
  /** Processes whose parent is not among the tool call's processes, by first event. */
  children: CausalityProcessNode[];
  omitted_children: CutNodes;
}

/**
 * A process (thread group) seen in the tool call's events. Its ppid, comm, binary and argv are
 * those of its first event and its first execve.
 */
export interface CausalityProcessNode {
  node: 'process';
  /** The tgid (the pid when an event has none); null for events that carry neither. */
  tgid: Integer | null;
  ppid: Integer | null;
  comm: string | null;
  /** The path its first execve ran; null without one. */
  binary: string | null;
  argv: string[] | null;
  first_event: DateTimeText;
  last_event: DateTimeText;
  /** This process's own events (child processes count their own). */
  counts: EventCounts;
  /** Its first events, by capture time. */
  events: CausalityEvent[];
  /** Its events past the bound. */
  omitted_events: EventCounts;
  /** Processes whose ppid is this one, by first event. */
  children: CausalityProcessNode[];
  omitted_children: CutNodes;
}
