/**
 * The answer of GET /v1/observe/summary (`provenance.observability_summary/v1`), as the CLI reads it
 * and the store writes it (summary.sql.ts): the wire contract alone, with no store code.
 */
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';

/** The observability summary of one run. */
export interface ObservabilitySummary {
  schema_version: 'provenance.observability_summary/v1';
  run_id: string;
  /** When something first named the run. */
  first_seen: DateTimeText;
  /** Capture times of the run's first and last events; null without events. */
  span: { first_event: DateTimeText | null; last_event: DateTimeText | null };
  events: {
    total: Count;
    by_type: CountsByName;
    by_evidence_level: CountsByName;
    /**
     * Of the total, the loader's and locale's opens of each exec (loader-opens.sql.ts): counted
     * here and by type, left out of `files`; `GET /v1/timeline?all=true` lists them.
     */
    loader_locale_opens: Count;
  };
  /** Tool calls recorded with POST /v1/record, and distinct tool calls named by bindings. */
  tool_calls: { recorded: Count; by_status: CountsByName; bound: Count };
  bindings: Count;
  processes: { distinct: Count; execs: Count };
  files: TopValues;
  network_destinations: TopValues;
  dns_names: TopValues;
  coverage: {
    /** Coverage gaps recorded for this run. */
    run_gaps: Count;
    /** Gaps tied to no run whose interval overlaps the run's event span: loss the run may have suffered. */
    host_gaps_in_span: Count;
  };
  graph: {
    objects: Count;
    event_batches: Count;
    /** The latest signed checkpoint; null before the first. */
    last_checkpoint: { hash: string; index: Count } | null;
    /** The outcome of the run's latest verify; null when it was never verified. */
    last_verify: {
      status: 'ok' | 'failed';
      error_count: Count;
      warning_count: Count;
      verified_at: DateTimeText;
    } | null;
  };
}

/** Counts by a name (an event type, an evidence level, a tool call status). */
export interface CountsByName {
  [name: string]: Count;
}

/** The most frequent values of a list, bounded, with the number of distinct values in all. */
export interface TopValues {
  distinct: Count;
  top: { value: string; events: Count }[];
}
