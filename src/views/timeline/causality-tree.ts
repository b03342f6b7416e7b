/**
 * GET /v1/timeline?view=causality in the store actor: a run's causality tree. It reads the process
 * rollup kept at write time (process-rollup.sql.ts): one row per (tool call, process) with its counts by
 * type and first events (causality-facts.sql.ts); JS only nests those rows (process-lineage.ts) and
 * applies the bounds. The loader's and locale's opens are left out unless `all`, counted apart: read
 * from the events' `loader_locale` column (one grouped count a run), with the first events of the
 * processes that have any read from their events rather than the rollup.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { evidenceName, typeName } from '../../model/codes.js';
import type { EventAttrs } from '../../telemetry/event-json.js';
import { eventSummary } from './entry-summary.js';
import {
  readFirstEvents,
  readRecords,
  readToolCalls,
  type ListedEventFields,
  type ProcessFacts,
  type ToolCallFacts,
} from './causality-facts.sql.js';
import { addCounts, addEvents, noEvents, subtractCounts } from './event-counts.js';
import { rolledUpEvents } from '../../telemetry/process-rollup.sql.js';
import { buildLineage, type LineageNode } from './process-lineage.js';
import type {
  CausalityBounds,
  CausalityEvent,
  CausalityProcessNode,
  CausalityToolCallNode,
  CutNodes,
  TimelineCausality,
} from './timeline-causality.js';
import { jsonText, type JsonText } from '../../store/json-text.js';

/** The params of the `timeline_causality` store query. */
export interface TimelineCausalityParams {
  run: string;
  /** List and count the loader's and locale's opens too (each marked); false: left out, counted apart. */
  all: boolean;
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
  connection: StoreConnection,
  side: StoreConnection,
  params: TimelineCausalityParams,
): Promise<JsonText<TimelineCausality>> {
  const { run, all } = params;
  const calls = await readToolCalls(connection, side, run, all);
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
  await Promise.all([
    readFirstEvents(
      connection,
      run,
      lineages.flatMap((lineage) => flatten(lineage.roots)),
      all,
    ),
    readRecords(side, run, shown),
  ]);
  const counts = noEvents();
  let hidden = 0;
  for (const call of calls.values()) {
    addCounts(counts, call.counts);
    for (const process of call.processes) hidden += process.hiddenOpens;
  }
  const time = (ns: bigint | null): string | null => (ns === null ? null : formatRfc3339Nanos(ns));
  const children = shown.map((call, i): CausalityToolCallNode => ({
    node: 'tool_call',
    tool_call_id: call.id,
    tool_call: call.record,
    bindings: call.bindings,
    first_event: time(call.firstEventNs),
    last_event: time(call.lastEventNs),
    counts: call.counts,
    children: lineages[i]!.roots.map(processNode),
    omitted_children: lineages[i]!.omitted,
  }));
  const answer: TimelineCausality = {
    schema_version: 'provenance.timeline/v1',
    view: 'causality',
    run_id: run,
    all,
    loader_locale_opens: hidden,
    bounds: causalityBounds,
    root: { node: 'run', run_id: run, counts, children, omitted_children: omitted },
  };
  return jsonText(answer);
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
    loader_locale: fields.loader_locale === true,
  };
}

/** A shown process as the answer writes it. */
function processNode(node: LineageNode<ProcessFacts>): CausalityProcessNode {
  const process = node.item;
  const events = (JSON.parse(process.firstEvents ?? '[]') as ListedEventFields[]).map(listedEvent);
  const listed = noEvents();
  for (const event of events) addEvents(listed, event.type, 1);
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
    events,
    omitted_events: subtractCounts(process.counts, listed),
    children: node.children.map(processNode),
    omitted_children: node.omitted,
  };
}
