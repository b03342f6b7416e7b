/**
 * The five sources the table view merges, in the order they sort within one instant (their rank).
 * Each names its key over its own table, `time` (the entry's instant) and `tie` (what orders its
 * rows within an instant: an event's seq, else the entry's id), selects a run's rows with the key
 * as `time_ns` and `tie`, and writes an entry's JSON from a row. An event entry holds the event as
 * GET /v1/telemetry/events writes it.
 */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { BIGINT } from '../../store/duckdb-api.js';
import { list, raw, sql, type Statement } from '../../store/sql.js';
import { evidenceName, typeName } from '../../model/codes.js';
import { hiddenLoaderOpen } from '../../telemetry/loader-opens.sql.js';
import {
  eventJson,
  eventJsonColumns,
  type EventAttrs,
  type EventJsonRow,
} from '../../telemetry/event-json.js';
import {
  artifactOf,
  bindingOf,
  callEffectsNote,
  effectNote,
  fileEffectOf,
  toolCallOf,
  type BindingRow,
  type ObjectRow,
  type ToolCallRow,
} from './context-records.js';
import {
  artifactSummary,
  bindingSummary,
  eventSummary,
  fileEffectSummary,
  toolCallSummary,
} from './entry-summary.js';
import type {
  TimelineArtifactEntry,
  TimelineBindingEntry,
  TimelineEntry,
  TimelineRisk,
  TimelineToolCallEntry,
} from './timeline-table.js';

/** The key columns every source selects. */
export interface SourceKey {
  time_ns: bigint;
  tie: bigint | string;
}

/** One source of timeline entries. */
export interface TimelineSource {
  kind: TimelineEntry['kind'];
  /** The key's two parts as SQL over the source's table. */
  time: Statement;
  tie: Statement;
  /** The tie is an integer (events: seq), not text. */
  integerTie: boolean;
  /**
   * `SELECT … FROM … WHERE run_id = run`, with the key among its columns as `time_ns` and `tie`; the
   * caller appends the keyset (`AND …`), the order and the limit. Filtering and ordering on the
   * table's own columns, not on a subquery's, lets DuckDB read the wide columns of only the rows
   * the limit keeps (measured: half the time of the wrapped form at 10M events).
   */
  select(run: string): Statement;
  /**
   * For a source whose `select` names only the key: the rows `keys` name, whole, in key order
   * (`keys` are in key order and span [first, last] in time).
   */
  widen?(run: string, keys: readonly SourceKey[]): Statement;
  /** The entry's JSON text (a TimelineEntry); `risks` are the page's, by event id. */
  entry(row: SourceKey, risks: ReadonlyMap<string, TimelineRisk>): string;
}

const time = (ns: bigint): string => formatRfc3339Nanos(ns);

/**
 * A binding's instant, over a `bindings` row: the start of its interval (the stored record's
 * startNs), or when the daemon accepted it when the interval has no start.
 */
export const bindingInstant = raw(
  "coalesce(TRY_CAST(json_extract_string(record, '$.startNs') AS BIGINT), created_ns)",
);

const toolCalls: TimelineSource = {
  kind: 'tool_call',
  time: sql`started_ns`,
  tie: sql`tool_call_id`,
  integerTie: false,
  select: (run) =>
    sql`SELECT started_ns AS time_ns, tool_call_id AS tie, record, object_hash FROM tool_calls WHERE run_id = ${run}`,
  entry(row) {
    const call = toolCallOf(row as SourceKey & ToolCallRow);
    const entry: TimelineToolCallEntry = {
      kind: 'tool_call',
      time: time(row.time_ns),
      id: call.tool_call_id,
      tool_call_id: call.tool_call_id,
      evidence_level: call.executed ? 'self_observed' : 'context_asserted',
      summary: toolCallSummary(call, callEffectsNote(row as SourceKey & ToolCallRow)),
      tool_call: call,
    };
    return JSON.stringify(entry);
  },
};

const bindings: TimelineSource = {
  kind: 'binding',
  time: sql`${bindingInstant}`,
  tie: sql`binding_id`,
  integerTie: false,
  select: (run) =>
    sql`SELECT ${bindingInstant} AS time_ns, binding_id AS tie, record, object_hash FROM bindings WHERE run_id = ${run}`,
  entry(row) {
    const binding = bindingOf(row as SourceKey & BindingRow);
    const entry: TimelineBindingEntry = {
      kind: 'binding',
      time: time(row.time_ns),
      id: binding.binding_id,
      tool_call_id: binding.tool_call_id,
      evidence_level: 'context_asserted',
      summary: bindingSummary(binding),
      binding,
    };
    return JSON.stringify(entry);
  },
};

const events: TimelineSource = {
  kind: 'event',
  time: sql`time_ns`,
  tie: sql`seq`,
  integerTie: true,
  // the key first, then only the page's rows whole: a top-N carrying every column reads them for
  // far more rows than it keeps (at 10M events: 12 ms, against 2 + 2 ms in two steps; list_contains
  // filters in the scan, where `IN (SELECT unnest(…))` joins: 3.4 ms)
  select: (run) => sql`SELECT time_ns, seq AS tie FROM events WHERE run_id = ${run}`,
  widen: (run, keys) =>
    sql`SELECT seq AS tie, judged, ${hiddenLoaderOpen} AS loader_locale, ${raw(eventJsonColumns)} FROM events
        WHERE run_id = ${run} AND time_ns >= ${keys[0]!.time_ns} AND time_ns <= ${keys[keys.length - 1]!.time_ns}
          AND list_contains(${list(
            keys.map((key) => key.tie),
            BIGINT,
          )}, seq)
        ORDER BY time_ns, seq`,
  // written by hand around eventJson, like events.sql.ts: keep in step with TimelineEventEntry
  entry(key, risks) {
    const row = key as SourceKey & EventJsonRow & { loader_locale: boolean };
    const attrs = JSON.parse(row.attrs) as EventAttrs;
    const summary = eventSummary(typeName(row.type), row.comm, row.tgid ?? row.pid, attrs);
    return (
      `{"kind":"event","time":"${time(row.time_ns)}","id":${JSON.stringify(row.id)},` +
      `"tool_call_id":${JSON.stringify(row.tool_call_id)},` +
      `"evidence_level":"${evidenceName(row.evidence_level)}","summary":${JSON.stringify(summary)},` +
      `"event":${eventJson(row)},"risk":${JSON.stringify(risks.get(row.id) ?? null)},` +
      `"loader_locale":${row.loader_locale}}`
    );
  },
};

/** An objects row with what a source selects beside it. */
type SourcedObjectRow = SourceKey & ObjectRow & Record<string, unknown>;

/** What a source of objects reads beside them: its columns (each after a comma), and their join. */
interface Beside {
  columns: Statement;
  join: Statement;
}

/**
 * The objects of one kind that POST /v1/record wrote for a run's tool calls, as a source: `parse`
 * reads one into its entry's object, `summarize` writes its summary line (from the object and its
 * row, with what the source reads `beside` it).
 */
function objectSource<
  Kind extends 'file_effect' | 'artifact',
  T extends { object_hash: string; tool_call_id: string },
>(
  kind: Kind,
  parse: (row: ObjectRow) => T,
  summarize: (object: T, row: SourcedObjectRow) => string,
  beside: (run: string) => Beside = () => ({ columns: sql``, join: sql`` }),
): TimelineSource {
  return {
    kind,
    time: sql`created_ns`,
    tie: sql`hash`,
    integerTie: false,
    select: (run) => {
      const { columns, join } = beside(run);
      return sql`SELECT created_ns AS time_ns, hash AS tie, hash, body${columns} FROM objects${join}
          WHERE objects.run_id = ${run} AND objects.kind = ${kind}`;
    },
    entry(row) {
      const object = parse(row as SourcedObjectRow);
      // the fields every entry has; `kind` and `object` are those of TimelineFileEffectEntry or TimelineArtifactEntry
      const head: Omit<TimelineArtifactEntry, 'kind' | 'object'> = {
        time: time(row.time_ns),
        id: object.object_hash,
        tool_call_id: object.tool_call_id,
        evidence_level: 'self_observed',
        summary: summarize(object, row as SourcedObjectRow),
      };
      return JSON.stringify({ kind, ...head, object });
    },
  };
}

/**
 * Beside each file effect, its tool call's `file_effects_compared` as JSON text when the record's
 * effects are incomplete (`{}` for a record stored before the field existed), else null. A join on
 * the run's incomplete tool calls (mostly none): a subquery per effect made a page of 1,000 effects
 * 2 to 4 times slower (116 -> 280 ms, median here), the join nothing measurable.
 */
const effectsCompared = (run: string): Beside => ({
  columns: sql`, incomplete.compared AS effects_compared`,
  join: sql` LEFT JOIN (
      SELECT tool_call_id, coalesce(CAST(json_extract(record, '$.file_effects_compared') AS VARCHAR), '{}') AS compared
      FROM tool_calls WHERE run_id = ${run} AND json_extract_string(record, '$.file_effects_complete') = 'false'
    ) incomplete ON incomplete.tool_call_id = json_extract_string(objects.body, '$.payload.tool_call_id')`,
});

const fileEffects = objectSource(
  'file_effect',
  fileEffectOf,
  (effect, row) => fileEffectSummary(effect, effectNote(row['effects_compared'] as string | null)),
  effectsCompared,
);
const artifacts = objectSource('artifact', artifactOf, (artifact) => artifactSummary(artifact));

/** The sources by rank: within one instant, entries sort in this order. */
export const timelineSources: readonly TimelineSource[] = [
  toolCalls,
  bindings,
  events,
  fileEffects,
  artifacts,
];
