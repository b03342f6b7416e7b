/**
 * The causality view's process rollup (sql/007_timeline_processes.sql), folded in behind the commits
 * by a PositionRollup (store/position-rollup.ts), and whole before the view reads it.
 * Every part of a row merges (sums, earliest by (time_ns, seq), the first events of two lists), so
 * events that join a run late, at any time, fold into their process's row exactly as if they had
 * come first; the view then reads one row per process, never the run's events.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { rebuildRollup, type RollupSpec } from '../../store/position-rollup.js';
import { execute, raw, sql, type Statement } from '../../store/sql.js';
import { typeCode } from '../codes.js';
import { eventJsonColumns } from '../event-json.js';

/** How many first events a process row keeps: the view's events_per_process. */
export const rolledUpEvents = 20;

// a process's key: as the view groups events (tool call, then tgid, else pid)
const key = raw("run_id, coalesce(tool_call_id, '') AS tool_call_id, coalesce(tgid, pid, -1) AS tgid");
// an event whole, as the view lists it: (time_ns, seq) first, so structs sort by them
const eventStruct = `struct_pack(time_ns, seq, ${eventJsonColumns
  .split(', ')
  .filter((name) => name !== 'time_ns')
  .join(', ')})`;
const exec = raw(String(typeCode('execve')));
const firstEvents = (list: string): string => `list_slice(list_sort(${list}), 1, ${rolledUpEvents})`;
/**
 * A list of first events as the JSON text the causality view lists them from (ListedEventFields in
 * causality-facts.ts): kept beside the list, written whenever it is (sql/008_timeline_first_listed.sql).
 */
const listed = (list: string): string =>
  `CAST(to_json(list_transform(${list}, e -> struct_pack(id := e.id, time_ns := CAST(e.time_ns AS VARCHAR),
     type := e.type, evidence_level := e.evidence_level, pid := e.pid, tgid := e.tgid, comm := e.comm,
     attrs := e.attrs))) AS VARCHAR)`;

/**
 * Folds the run events selected by `where` (over `events`) into both rollup tables. A process row's
 * list of first events is merged only where the new events reach into it (it holds fewer than it
 * keeps, or they start before its last): most events come after their process's first ones, and a
 * merge rewrites the whole list.
 */
async function rollUp(connection: DuckDBConnection, where: Statement): Promise<void> {
  const chunkFirst = raw(firstEvents(`min_by(${eventStruct}, struct_pack(time_ns, seq), ${rolledUpEvents})`));
  await execute(
    connection,
    sql`INSERT INTO timeline_processes
        SELECT c.*, ${raw(listed('c.first_events'))} FROM (
          SELECT ${key}, count(*), min(time_ns), max(time_ns),
            min(struct_pack(time_ns, seq, ppid)) FILTER (WHERE ppid IS NOT NULL),
            min(struct_pack(time_ns, seq, comm)) FILTER (WHERE comm IS NOT NULL),
            min(struct_pack(time_ns, seq, comm)) FILTER (WHERE type = ${exec} AND comm IS NOT NULL),
            min(struct_pack(time_ns, seq, attrs)) FILTER (WHERE type = ${exec}),
            ${chunkFirst} AS first_events
          FROM events WHERE run_id IS NOT NULL AND ${where} GROUP BY 1, 2, 3) c
        ON CONFLICT (run_id, tool_call_id, tgid) DO UPDATE SET
          events = events + excluded.events,
          first_ns = least(first_ns, excluded.first_ns), last_ns = greatest(last_ns, excluded.last_ns),
          ppid = least(ppid, excluded.ppid), comm = least(comm, excluded.comm),
          exec_comm = least(exec_comm, excluded.exec_comm), exec = least(exec, excluded.exec)`,
  );
  // rows just inserted hold exactly the chunk's first events: the condition leaves them alone
  const merged = firstEvents('list_concat(p.first_events, c.first)');
  await execute(
    connection,
    sql`UPDATE timeline_processes p SET first_events = ${raw(merged)}, first_listed = ${raw(listed(merged))}
        FROM (SELECT ${key}, ${chunkFirst} AS first FROM events
              WHERE run_id IS NOT NULL AND ${where} GROUP BY 1, 2, 3) c
        WHERE p.run_id = c.run_id AND p.tool_call_id = c.tool_call_id AND p.tgid = c.tgid
          AND NOT list_has_all(p.first_events, c.first)
          AND (len(p.first_events) < ${rolledUpEvents}
            OR struct_pack(time_ns := c.first[1].time_ns, seq := c.first[1].seq)
              < struct_pack(time_ns := p.first_events[-1].time_ns, seq := p.first_events[-1].seq))`,
  );
  await execute(
    connection,
    sql`INSERT INTO timeline_process_types
        SELECT ${key}, type, count(*) FROM events WHERE run_id IS NOT NULL AND ${where} GROUP BY 1, 2, 3, 4
        ON CONFLICT (run_id, tool_call_id, tgid, type) DO UPDATE SET events = events + excluded.events`,
  );
}

/**
 * The process rollup, kept by a PositionRollup. A chunk's first events per process are whole
 * events: chunks of 50,000 ran the store out of its 256 MB on a run that reuses its pids.
 */
export const processRollup: RollupSpec = {
  name: 'process rollup',
  markTable: 'timeline_rollup_mark',
  tables: ['timeline_processes', 'timeline_process_types'],
  chunk: 10_000n,
  fold: rollUp,
};

/** Rolls up every run event again from scratch, in one transaction (a store grown in SQL). */
export function rebuildProcessRollup(connection: DuckDBConnection): Promise<void> {
  return rebuildRollup(connection, processRollup);
}
