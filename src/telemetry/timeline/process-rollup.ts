/**
 * The causality view's process rollup (sql/007_timeline_processes.sql), kept by the store actor in
 * the transaction that puts events into a run: at commit, and when a binding settles spooled events.
 * Every part of a row merges (sums, earliest by (time_ns, seq), the first events of two lists), so
 * events that join a run late, at any time, fold into their process's row exactly as if they had
 * come first; the view then reads one row per process, never the run's events.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, inTransaction, raw, readRows, sql, type Statement } from '../../store/sql.js';
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

/** Folds the run events selected by `where` (over `events`) into both rollup tables. */
async function rollUp(connection: DuckDBConnection, where: Statement): Promise<void> {
  await execute(
    connection,
    sql`INSERT INTO timeline_processes
        SELECT ${key}, count(*), min(time_ns), max(time_ns),
          min(struct_pack(time_ns, seq, ppid)) FILTER (WHERE ppid IS NOT NULL),
          min(struct_pack(time_ns, seq, comm)) FILTER (WHERE comm IS NOT NULL),
          min(struct_pack(time_ns, seq, comm)) FILTER (WHERE type = ${exec} AND comm IS NOT NULL),
          min(struct_pack(time_ns, seq, attrs)) FILTER (WHERE type = ${exec}),
          ${raw(firstEvents(`min_by(${eventStruct}, struct_pack(time_ns, seq), ${rolledUpEvents})`))}
        FROM events WHERE run_id IS NOT NULL AND ${where} GROUP BY 1, 2, 3
        ON CONFLICT (run_id, tool_call_id, tgid) DO UPDATE SET
          events = events + excluded.events,
          first_ns = least(first_ns, excluded.first_ns), last_ns = greatest(last_ns, excluded.last_ns),
          ppid = least(ppid, excluded.ppid), comm = least(comm, excluded.comm),
          exec_comm = least(exec_comm, excluded.exec_comm), exec = least(exec, excluded.exec),
          first_events = ${raw(firstEvents('list_concat(first_events, excluded.first_events)'))}`,
  );
  await execute(
    connection,
    sql`INSERT INTO timeline_process_types
        SELECT ${key}, type, count(*) FROM events WHERE run_id IS NOT NULL AND ${where} GROUP BY 1, 2, 3, 4
        ON CONFLICT (run_id, tool_call_id, tgid, type) DO UPDATE SET events = events + excluded.events`,
  );
}

/**
 * Folds the events at positions [seqFrom, seqTo) that belong to a run into the rollup; call in the
 * transaction that gave them those positions (positions are handed out once, so none is counted twice).
 */
export function rollUpEvents(connection: DuckDBConnection, seqFrom: bigint, seqTo: bigint): Promise<void> {
  if (seqFrom >= seqTo) return Promise.resolve();
  return rollUp(connection, sql`seq >= ${seqFrom} AND seq < ${seqTo}`);
}

/** Rolls up every run event again from scratch, in one transaction. */
export async function rebuildProcessRollup(connection: DuckDBConnection): Promise<void> {
  await inTransaction(connection, async () => {
    await execute(connection, sql`DELETE FROM timeline_processes`);
    await execute(connection, sql`DELETE FROM timeline_process_types`);
    await rollUp(connection, sql`TRUE`);
  });
}

/**
 * At start: a store whose runs hold events but whose rollup is empty was written before the rollup
 * existed (format 6 and older), and is rolled up whole. Returns whether it was.
 */
export async function ensureProcessRollup(connection: DuckDBConnection): Promise<boolean> {
  const [state] = await readRows<{ due: boolean }>(
    connection,
    sql`SELECT EXISTS (SELECT 1 FROM events WHERE run_id IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM timeline_processes) AS due`,
  );
  if (!state!.due) return false;
  await rebuildProcessRollup(connection);
  return true;
}
