/**
 * The answer of GET /v1/runs (`provenance.runs/v1`), as the CLI reads it and the store writes it
 * (runs.sql.ts): the wire contract alone, with no store code.
 */
import type { CursorToken } from '../model/cursor.js';
import type { PageLimit } from '../model/paging.js';
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';

/** One page of the known runs, newest first (`provenance.runs/v1`, a provd extension of the spec). */
export interface RunList {
  schema_version: 'provenance.runs/v1';
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  /** The next page's cursor, or null on the last page. */
  next_cursor: CursorToken | null;
  runs: RunSummary[];
}

/** What is known of one run; GET /v1/telemetry/correlations?run= lists its bindings one by one. */
export interface RunSummary {
  run_id: string;
  /** When something first named the run (its first binding). */
  first_seen: DateTimeText;
  bindings: RunBindings;
  /** The tool calls the run's context names (an agent's hooks, `provd record`), bound or not. */
  tool_calls: RunToolCalls;
  events: RunEvents;
}

/** A run's tool calls as its context names them. */
export interface RunToolCalls {
  count: Count;
  /** Those the gate denied before they ran. */
  denied: Count;
}

/** The bindings that name a run. */
export interface RunBindings {
  count: Count;
  /** Distinct tool calls among them. */
  tool_calls: Count;
  /** When the latest of them was made; null without bindings. */
  last_bound: DateTimeText | null;
}

/**
 * A run's events, from its 10-second windows: exact counts; times to the window. Events still in
 * the spool are not the run's yet.
 */
export interface RunEvents {
  count: Count;
  /** Events whose evidence level is kernel_correlated. */
  kernel_correlated: Count;
  /** Events the default policy would not simply allow. */
  risky: Count;
  /** Start of the 10 s window holding the run's earliest event (by capture time); null without events. */
  from: DateTimeText | null;
  /** End of the 10 s window holding its latest event; null without events. */
  to: DateTimeText | null;
}
