/** explain of an event and of a process: the process that did it, its exec lineage, up to the tool call. */
import { readRows, sql } from '../../store/sql.js';
import { typeCode } from '../../model/codes.js';
import type { ExplainStep } from './explain-result.js';
import {
  type Explained,
  type Source,
  attributionOf,
  basis,
  fromAttributed,
  unknown,
} from './explain-trail.js';
import { type EventRow, type Sealed, eventNode, sealRows } from './explain-reads.sql.js';
import {
  type Attribution,
  type ProcessLookup,
  type ProcessRow,
  processNode,
  readProcessEvent,
  readProcessEvents,
} from './process-reads.sql.js';

/** How far exec lineage is followed up. */
export const maxLineage = 32;

/**
 * event → its process → lineage → tool call → run. The tool call, binding and run are read on the
 * side connection while lineage is walked, and then the event's sealing batch; the processes come
 * with theirs from the reads that find them.
 */
export async function fromEvent(source: Source, row: EventRow): Promise<Explained> {
  const walk = async (): Promise<Sealed<ProcessRow>[]> => {
    const first = await performers(source, row);
    return [...first, ...(await ancestors(source, first))];
  };
  const aside = async (): Promise<[Attribution | undefined, Sealed<EventRow>]> => {
    const attribution = await attributionOf(source.side, row);
    const [sealed] = await sealRows(source.side, [row]);
    return [attribution, sealed!];
  };
  const [[attribution, event], [performer, ...parents]] = await Promise.all([aside(), walk()]);
  const path: ExplainStep[] =
    performer === undefined
      ? []
      : [
          { basis: basis('performed_by', 'process_identity', 1, performer), node: processNode(performer) },
          ...parents.map(childOf),
        ];
  // lineage shows how the process came to be; the event's binding says which tool call it served
  return { node: eventNode(event), trail: fromAttributed(event, path, attribution) };
}

/**
 * The process that performed `row`, and its parent where one read finds both: the row's own ppid
 * names the parent before the process's exec is read. That parent is kept where the exact read
 * would find the same row (an exec no later than the process's own, of the same ppid).
 */
export async function performers(source: Source, row: EventRow): Promise<Sealed<ProcessRow>[]> {
  if (row.tgid === null) return [];
  const guess = row.ppid !== null && row.ppid !== row.tgid;
  const lookups: ProcessLookup[] = [{ tgid: row.tgid, beforeNs: row.time_ns }];
  if (guess) lookups.push({ tgid: row.ppid!, beforeNs: row.time_ns, guess: true });
  const [process, parent] = await readProcessEvents(
    source.connection,
    row.run_id,
    lookups,
    source.unfoldedFrom,
    source.seen,
  );
  if (process === undefined) return [];
  const exact =
    parent?.type === typeCode('execve') && process.ppid === row.ppid && parent.time_ns <= process.time_ns;
  return exact ? [process, parent] : [process];
}

/** The processes that started the last of `lineage` (a process and its parents), as far as the run holds their events. */
export async function ancestors(
  source: Source,
  lineage: readonly Sealed<ProcessRow>[],
): Promise<Sealed<ProcessRow>[]> {
  const found: Sealed<ProcessRow>[] = [];
  const seen = new Set(lineage.map((row) => row.tgid));
  let current = lineage[lineage.length - 1];
  for (
    let depth = lineage.length - 1;
    current !== undefined && depth < maxLineage && current.ppid !== null && !seen.has(current.ppid);
    depth++
  ) {
    // every event of the run is in the rollup, which never saw this parent: nothing to read
    if (source.unfoldedFrom === null && source.seen.get(current.ppid) === false) break;
    const parent = await readProcessEvent(
      source.connection,
      current.run_id,
      current.ppid,
      current.time_ns,
      source.unfoldedFrom,
      source.seen,
    );
    if (parent === undefined) break;
    seen.add(parent.tgid);
    found.push(parent);
    current = parent;
  }
  return found;
}

export function childOf(parent: Sealed<ProcessRow>): ExplainStep {
  return { basis: basis('child_of', 'exec_lineage', 1, parent), node: processNode(parent) };
}

/** A process by its exec_id, or by tgid (the latest process with it; others counted). */
export async function explainProcess(source: Source, id: string): Promise<Explained> {
  const { connection } = source;
  const byTgid = /^\d{1,10}$/.test(id);
  const rows = await readRows<{ run_id: string | null; time_ns: bigint; tgid: number }>(
    connection,
    byTgid
      ? sql`SELECT run_id, max(time_ns) AS time_ns, any_value(tgid) AS tgid FROM events
            WHERE tgid = ${Number(id)} AND type = ${typeCode('execve')} GROUP BY run_id, time_ns ORDER BY time_ns DESC`
      : sql`SELECT run_id, time_ns, tgid FROM events
            WHERE type = ${typeCode('execve')} AND json_extract_string(attrs, '$.exec_id') = ${id}
            ORDER BY time_ns DESC`,
  );
  const latest = rows[0] ?? unknown('process', id);
  const process = (await readProcessEvent(
    connection,
    latest.run_id,
    latest.tgid,
    latest.time_ns,
    source.unfoldedFrom,
    source.seen,
  ))!;
  const parents = await ancestors(source, [process]);
  // lineage shows how the process came to be; its binding says which tool call it served
  const trail = fromAttributed(process, parents.map(childOf), await attributionOf(connection, process));
  return { node: processNode(process), trail, otherMatches: rows.length - 1 };
}
