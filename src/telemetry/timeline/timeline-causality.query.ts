/**
 * GET /v1/timeline?view=causality in the store actor: a run's causality tree. It reads the process
 * rollup kept at write time (process-rollup.ts): one row per (tool call, process) with its counts by
 * type and first events (causality-facts.ts), never the run's events; JS only nests those rows
 * (process-lineage.ts) and applies the bounds.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { requireRun } from '../../provenance/run-exists.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { list, raw, readRows, sql } from '../../store/sql.js';
import { evidenceName, typeName } from '../codes.js';
import type { EventAttrs } from '../event-json.js';
import { eventSummary } from './entry-summary.js';
import { toolCallOf, type TimelineToolCall, type ToolCallRow } from './context-records.js';
import { processKey, readToolCalls, type ProcessFacts, type ToolCallFacts } from './causality-facts.js';
import { addCounts, addEvents, noEvents, subtractCounts } from './event-counts.js';
import { rolledUpEvents } from './process-rollup.js';
import { buildLineage, type LineageNode } from './process-lineage.js';
import type {
  CausalityBounds,
  CausalityEvent,
  CausalityProcessNode,
  CausalityToolCallNode,
  CutNodes,
  EventCounts,
  TimelineCausality,
} from './timeline-causality.js';

/** The params of the `timeline_causality` store query. */
export interface TimelineCausalityParams {
  run: string;
}

/** How much of each list the tree shows. */
export const causalityBounds: CausalityBounds = {
  tool_calls: 50,
  processes_per_parent: 100,
  process_depth: 32,
  events_per_process: rolledUpEvents,
};

/**
 * The TimelineCausality body of a run, as JSON text. Reads that do not wait for each other run on
 * two connections at once.
 */
export async function timelineCausality(
  connection: DuckDBConnection,
  side: DuckDBConnection,
  params: TimelineCausalityParams,
): Promise<string> {
  const { run } = params;
  const [, calls] = await Promise.all([requireRun(connection, run), readToolCalls(connection, side, run)]);
  const unattributed = calls.get(null);
  // the earliest first: a bound cuts the latest
  const attributed = [...calls.values()].filter((call) => call.id !== null).sort(byFirstInstant);
  const shown = attributed.slice(0, causalityBounds.tool_calls);
  const omitted: CutNodes = { count: 0, events: noEvents() };
  for (const call of attributed.slice(causalityBounds.tool_calls)) {
    omitted.count++;
    addCounts(omitted.events, call.counts);
  }
  if (unattributed !== undefined) shown.push(unattributed);

  const lineages = shown.map((call) =>
    buildLineage(call.processes, {
      perParent: causalityBounds.processes_per_parent,
      depth: causalityBounds.process_depth,
    }),
  );
  const [events, records] = await Promise.all([
    readFirstEvents(
      connection,
      run,
      lineages.flatMap((lineage) => flatten(lineage.roots)),
    ),
    readRecords(
      side,
      run,
      shown.filter((call) => call.recorded).map((call) => call.id!),
    ),
  ]);
  const counts = noEvents();
  for (const call of calls.values()) addCounts(counts, call.counts);
  const time = (ns: bigint | null): string | null => (ns === null ? null : formatRfc3339Nanos(ns));
  const children = shown.map((call, i): CausalityToolCallNode => ({
    node: 'tool_call',
    tool_call_id: call.id,
    tool_call: call.id === null ? null : (records.get(call.id) ?? null),
    bindings: call.bindings,
    first_event: time(call.firstEventNs),
    last_event: time(call.lastEventNs),
    counts: call.counts,
    children: lineages[i]!.roots.map((node) => processNode(node, events)),
    omitted_children: lineages[i]!.omitted,
  }));
  const answer: TimelineCausality = {
    schema_version: 'provenance.timeline/v1',
    view: 'causality',
    run_id: run,
    bounds: causalityBounds,
    root: { node: 'run', run_id: run, counts, children, omitted_children: omitted },
  };
  return JSON.stringify(answer);
}

/** Earlier first instant first, then by id. */
function byFirstInstant(a: ToolCallFacts, b: ToolCallFacts): number {
  if (a.firstNs !== b.firstNs) return a.firstNs < b.firstNs ? -1 : 1;
  return a.id! < b.id! ? -1 : 1;
}

/** Every shown process, depth first. */
function flatten(nodes: readonly LineageNode<ProcessFacts>[]): ProcessFacts[] {
  return nodes.flatMap((node) => [node.item, ...flatten(node.children)]);
}

/** A listed event's fields as the rollup keeps them, in JSON text: time_ns as a decimal string (a JSON number would round it). */
interface ListedEventFields {
  id: string;
  time_ns: string;
  type: number;
  evidence_level: number;
  pid: number | null;
  tgid: number | null;
  comm: string | null;
  attrs: string;
}

// a rollup event's listed fields for to_json, over lambda parameter `e`
const listedFields =
  'id := e.id, time_ns := CAST(e.time_ns AS VARCHAR), type := e.type, evidence_level := e.evidence_level, ' +
  'pid := e.pid, tgid := e.tgid, comm := e.comm, attrs := e.attrs';

/** A listed event as the answer writes it. */
function listedEvent(fields: ListedEventFields): CausalityEvent {
  const type = typeName(fields.type);
  return {
    id: fields.id,
    time: formatRfc3339Nanos(BigInt(fields.time_ns)),
    type,
    evidence_level: evidenceName(fields.evidence_level),
    summary: eventSummary(
      type,
      fields.comm,
      fields.tgid ?? fields.pid,
      JSON.parse(fields.attrs) as EventAttrs,
    ),
  };
}

/** The events a process node lists, and the same events counted by type. */
interface ListedEvents {
  events: CausalityEvent[];
  counts: EventCounts;
}

/** The first events of each shown process (by capture time, then position), by process key: kept in its rollup row. */
async function readFirstEvents(
  connection: DuckDBConnection,
  run: string,
  shown: readonly ProcessFacts[],
): Promise<Map<string, ListedEvents>> {
  const events = new Map<string, ListedEvents>();
  if (shown.length === 0) return events;
  const pairs = sql`SELECT unnest(${list(
    shown.map((process) => process.toolCallId ?? ''),
    VARCHAR,
  )}) AS tool_call_id, unnest(${list(
    shown.map((process) => BigInt(process.tgid ?? -1)),
    BIGINT,
  )}) AS tgid`;
  // as one JSON text per process, BIGINTs as strings: DuckDB writes it and JSON.parse reads it far
  // faster than the client converts lists of structs value by value (measured: 4 ms vs 12 ms for 1,000)
  const rows = await readRows<{ tool_call_id: string | null; tgid: number | null; first_events: string }>(
    connection,
    sql`SELECT nullif(p.tool_call_id, '') AS tool_call_id, CAST(nullif(p.tgid, -1) AS UINTEGER) AS tgid,
          CAST(to_json(list_transform(p.first_events, e -> struct_pack(${raw(listedFields)}))) AS VARCHAR)
            AS first_events
        FROM timeline_processes p SEMI JOIN (${pairs}) shown
          ON p.tool_call_id = shown.tool_call_id AND p.tgid = shown.tgid
        WHERE p.run_id = ${run}`,
  );
  for (const row of rows) {
    const listed: ListedEvents = { events: [], counts: noEvents() };
    for (const event of JSON.parse(row.first_events) as ListedEventFields[]) {
      listed.events.push(listedEvent(event));
      addEvents(listed.counts, typeName(event.type), 1);
    }
    events.set(processKey(row.tool_call_id, row.tgid), listed);
  }
  return events;
}

/** The recorded tool calls among `ids`, by id. */
async function readRecords(
  connection: DuckDBConnection,
  run: string,
  ids: readonly string[],
): Promise<Map<string, TimelineToolCall>> {
  if (ids.length === 0) return new Map();
  const rows = await readRows<ToolCallRow & { tool_call_id: string }>(
    connection,
    sql`SELECT tool_call_id, record, object_hash FROM tool_calls
        WHERE run_id = ${run} AND tool_call_id IN (SELECT unnest(${list([...ids], VARCHAR)}))`,
  );
  return new Map(rows.map((row) => [row.tool_call_id, toolCallOf(row)]));
}

/** A shown process as the answer writes it. */
function processNode(
  node: LineageNode<ProcessFacts>,
  events: ReadonlyMap<string, ListedEvents>,
): CausalityProcessNode {
  const process = node.item;
  const listed = events.get(processKey(process.toolCallId, process.tgid)) ?? {
    events: [],
    counts: noEvents(),
  };
  return {
    node: 'process',
    tgid: process.tgid,
    ppid: process.ppid,
    comm: process.comm,
    binary: process.binary,
    argv: process.argv,
    first_event: formatRfc3339Nanos(process.firstNs),
    last_event: formatRfc3339Nanos(process.lastNs),
    counts: process.counts,
    events: listed.events,
    omitted_events: subtractCounts(process.counts, listed.counts),
    children: node.children.map((child) => processNode(child, events)),
    omitted_children: node.omitted,
  };
}
