/**
 * The table view of GET /v1/timeline (`provenance.timeline/v1`, `view: "table"`): one chronological,
 * keyset-paged list in which a run's application context (tool calls, bindings, file effects,
 * artifacts) and its runtime events are merged, each entry with its record.
 */
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { EvidenceLevel } from '../../model/codes.js';
import type { CursorToken } from '../../model/cursor.js';
import type { TelemetryEvent } from '../../telemetry/event-json.js';
import type { PageLimit } from '../../model/paging.js';
import type { SecurityRisk } from '../../security/security-risks.js';
import type {
  TimelineArtifact,
  TimelineBinding,
  TimelineFileEffect,
  TimelineToolCall,
} from './context-records.js';

/** One page of a run's timeline. */
export interface TimelineTable {
  schema_version: 'provenance.timeline/v1';
  view: 'table';
  run_id: string;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  /** The next page's cursor, or null on the last page. */
  next_cursor: CursorToken | null;
  /** True when loader and locale opens are listed (`all=true`), each marked; false: left out. */
  all: boolean;
  /**
   * The run's loader and locale opens (telemetry/loader-opens.sql.ts): every event of the whole run
   * so judged, not only the page's, whether listed (`all=true`) or left out; the same on every page.
   */
  loader_locale_opens: Count;
  /** By time, then tool calls, bindings, events, file effects, artifacts, then by id (events: by position). */
  entries: TimelineEntry[];
}

/** What every entry says, whatever its kind. */
interface TimelineEntryHead {
  /**
   * The entry's instant: an event's capture time; a tool call's start; a binding's interval start
   * (when it was accepted, if it has none); when a file effect or artifact was stored.
   */
  time: DateTimeText;
  /** The event id, tool call id, binding id, or object hash. */
  id: string;
  /** The tool call it belongs to; null for an event no binding attributed. */
  tool_call_id: string | null;
  /**
   * An event's own level; a tool call's (`self_observed` when the daemon ran it, `context_asserted`
   * when asserted); `context_asserted` for a binding, whoever asserted it; `self_observed` for what
   * the daemon saw a command it ran do.
   */
  evidence_level: EvidenceLevel;
  /** One short human line. */
  summary: string;
}

/** A runtime event, as GET /v1/telemetry/events answers it. */
export interface TimelineEventEntry extends TimelineEntryHead {
  kind: 'event';
  event: TelemetryEvent;
  /** The policy's decision on the event, with what became of it; null when it judged none. */
  risk: TimelineRisk | null;
  /** True for a loader or locale open (listed only with `all=true`). */
  loader_locale: boolean;
}

/** A risk on a timeline event: the decision and its outcome (GET /v1/security/risks has the rest). */
export type TimelineRisk = Pick<SecurityRisk, 'risk_id' | 'rule_id' | 'severity' | 'decision' | 'response'>;

/** A tool call recorded with POST /v1/record. */
export interface TimelineToolCallEntry extends TimelineEntryHead {
  kind: 'tool_call';
  tool_call: TimelineToolCall;
}

/** A ToolCallScope binding. */
export interface TimelineBindingEntry extends TimelineEntryHead {
  kind: 'binding';
  binding: TimelineBinding;
}

/** A file effect of a recorded command. */
export interface TimelineFileEffectEntry extends TimelineEntryHead {
  kind: 'file_effect';
  object: TimelineFileEffect;
}

/** An output stream of a recorded command. */
export interface TimelineArtifactEntry extends TimelineEntryHead {
  kind: 'artifact';
  object: TimelineArtifact;
}

/** One entry of the table view. */
export type TimelineEntry =
  | TimelineEventEntry
  | TimelineToolCallEntry
  | TimelineBindingEntry
  | TimelineFileEffectEntry
  | TimelineArtifactEntry;
