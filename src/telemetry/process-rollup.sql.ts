/**
 * The causality view's process rollup (sql/007_timeline_processes.sql), folded in by the store actor
 * behind the commits, never inside them: ingest is the hot path. A persisted mark says up to which
 * position the run events are folded in; positions are handed out once and in order (a late-claimed
 * event gets a new one when it joins its run), so every event is folded exactly once. The rollup
 * catches up while ingest is idle, a bounded chunk per second, and whole (chunk by chunk) before the
 * view reads it.
 * Every part of a row merges (sums, earliest by (time_ns, seq), the first events of two lists), so
 * events that join a run late, at any time, fold into their process's row exactly as if they had
 * come first; the view then reads one row per process, never the run's events.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { log } from '../shared/log.js';
import { execute, inTransaction, raw, readRows, sql, type RawSql, type Statement } from '../store/sql.js';
import { classifyStoreError } from '../store/store-error.js';
import type { WriteQueue } from '../store/write-queue.js';
import { typeCode } from '../model/codes.js';
import { eventJsonColumns } from './event-json.js';
import { StepTrace } from '../store/step-trace.js';

/**
 * Another per-run table folded in with the rollup, in its transactions and under its mark (the
 * security domain's signal values): the workers' store modules hand these in explicitly.
 */
export interface RollupFold {
  /** Names it in traces (src/store/step-trace.ts). */
  name: string;
  /** The attrs it reads ('$.path', ...): the chunk's events have them extracted once for every fold. */
  attrs: readonly string[];
  /** Folds in the run events of `chunk`. */
  fold(connection: StoreConnection, chunk: FoldChunk): Promise<void>;
  /** Empties what it folded in, before a rebuild. */
  clear(connection: StoreConnection): Promise<void>;
}

/**
 * The run events of one fold, read once for every fold: `table` is a temporary table of them with
 * run_id, tool_call_id (or ''), tgid (else pid, else -1), ppid, comm, type, time_ns, seq, id, judged
 * and `a`, the values of every fold's attrs; `attr(path)` names one of those.
 */
export interface FoldChunk {
  /** The same events, as a condition over `events` (for what a fold reads that the table lacks). */
  where: Statement;
  table: RawSql;
  attr(path: string): RawSql;
}

/** Reads the run events `where` selects into the fold table, with the attrs `paths` extracted. */
async function readFoldChunk(
  connection: StoreConnection,
  where: Statement,
  paths: readonly string[],
): Promise<FoldChunk> {
  const table = raw('fold_chunk');
  // json_extract_string of an empty path list is an empty list: a fold set that reads no attrs
  const list = `[${paths.map((path) => `'${path}'`).join(', ')}]`;
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE fold_chunk AS
        SELECT ${key}, ppid, comm, type, time_ns, seq, id, coalesce(judged, false) AS judged,
          ${raw(paths.length === 0 ? '[]::VARCHAR[]' : `json_extract_string(attrs, ${list})`)} AS a
        FROM events WHERE run_id IS NOT NULL AND ${where}`,
  );
  return {
    where,
    table,
    attr: (path) => {
      const index = paths.indexOf(path);
      if (index === -1) throw new Error(`no fold declared the attr ${path}`);
      return raw(`a[${index + 1}]`);
    },
  };
}

/** Whether positions [from, to) hold an event of a run: the only events any fold reads. */
async function holdsRunEvents(connection: StoreConnection, from: bigint, to: bigint): Promise<boolean> {
  const rows = await readRows(
    connection,
    sql`SELECT 1 FROM events WHERE run_id IS NOT NULL AND seq >= ${from} AND seq < ${to} LIMIT 1`,
  );
  return rows.length > 0;
}

/** Every attr path the folds read, each once. */
function foldPaths(folds: readonly RollupFold[]): string[] {
  return [...new Set(folds.flatMap((fold) => fold.attrs))];
}

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
 * causality-facts.sql.ts): kept beside the list, written whenever it is (sql/008_timeline_first_listed.sql).
 */
const listed = (list: string): string =>
  `CAST(to_json(list_transform(${list}, e -> struct_pack(id := e.id, time_ns := CAST(e.time_ns AS VARCHAR),
     type := e.type, evidence_level := e.evidence_level, pid := e.pid, tgid := e.tgid, comm := e.comm,
     attrs := e.attrs))) AS VARCHAR)`;

/**
 * Folds the run events selected by `where` (over `events`) into both rollup tables. The chunk is
 * first aggregated per process without its events' bodies (the positions of its first events
 * only); whole events are read only for the processes whose list of first events the chunk
 * reaches into: new processes, and those holding fewer than they keep or whose last comes after
 * the chunk's first. Most events come after their process's first ones, and building a whole
 * event for every one cost the fold most of its time (and its memory, with events of large attrs).
 */
async function rollUp(connection: StoreConnection, chunk: FoldChunk): Promise<void> {
  const { where, table } = chunk;
  const same = raw('p.run_id = c.run_id AND p.tool_call_id = c.tool_call_id AND p.tgid = c.tgid');
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE rollup_chunk AS
        SELECT run_id, tool_call_id, tgid, count(*) AS events, min(time_ns) AS first_ns, max(time_ns) AS last_ns,
          min(struct_pack(time_ns, seq, ppid)) FILTER (WHERE ppid IS NOT NULL) AS ppid,
          min(struct_pack(time_ns, seq, comm)) FILTER (WHERE comm IS NOT NULL) AS comm,
          min(struct_pack(time_ns, seq, comm)) FILTER (WHERE type = ${exec} AND comm IS NOT NULL) AS exec_comm,
          min(struct_pack(time_ns, seq)) FILTER (WHERE type = ${exec}) AS exec_key,
          min_by(seq, struct_pack(time_ns, seq), ${rolledUpEvents}) AS first_seqs,
          min(struct_pack(time_ns, seq)) AS first_key
        FROM ${table} GROUP BY 1, 2, 3`,
  );
  // whole events: the chunk's first ones of the processes it reaches into, and each one's first exec
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE rollup_events AS
        WITH wanted AS (
          SELECT c.run_id, c.tool_call_id, c.tgid, unnest(c.first_seqs) AS w_seq, true AS first
          FROM rollup_chunk c LEFT JOIN timeline_processes p ON ${same}
          WHERE p.run_id IS NULL OR len(p.first_events) < ${rolledUpEvents}
            OR c.first_key < struct_pack(time_ns := p.first_events[-1].time_ns, seq := p.first_events[-1].seq)
          UNION ALL
          SELECT run_id, tool_call_id, tgid, exec_key.seq, false FROM rollup_chunk WHERE exec_key IS NOT NULL)
        SELECT w_run AS run_id, w_tool AS tool_call_id, w_tgid AS tgid,
          ${raw(firstEvents(`list(${eventStruct}) FILTER (WHERE w_first)`))} AS first,
          min(struct_pack(time_ns, seq, attrs)) FILTER (WHERE type = ${exec}) AS exec
        FROM (SELECT w.run_id AS w_run, w.tool_call_id AS w_tool, w.tgid AS w_tgid, w.first AS w_first, e.*
              FROM events e JOIN wanted w ON e.seq = w.w_seq WHERE e.run_id IS NOT NULL AND ${where})
        GROUP BY 1, 2, 3`,
  );
  // processes the rollup holds already (updating a list column rewrites it: only where it changes)
  await execute(
    connection,
    sql`UPDATE timeline_processes p SET events = p.events + c.events,
          first_ns = least(p.first_ns, c.first_ns), last_ns = greatest(p.last_ns, c.last_ns),
          ppid = least(p.ppid, c.ppid), comm = least(p.comm, c.comm), exec_comm = least(p.exec_comm, c.exec_comm),
          exec = least(p.exec, c.exec)
        FROM (SELECT * FROM rollup_chunk LEFT JOIN (SELECT run_id, tool_call_id, tgid, exec FROM rollup_events)
              USING (run_id, tool_call_id, tgid)) c
        WHERE ${same}`,
  );
  const merged = firstEvents('list_concat(p.first_events, c.first)');
  await execute(
    connection,
    sql`UPDATE timeline_processes p SET first_events = ${raw(merged)}, first_listed = ${raw(listed(merged))}
        FROM rollup_events c WHERE ${same} AND c.first IS NOT NULL`,
  );
  await execute(
    connection,
    sql`INSERT INTO timeline_processes
        SELECT c.run_id, c.tool_call_id, c.tgid, c.events, c.first_ns, c.last_ns, c.ppid, c.comm, c.exec_comm,
          f.exec, f.first, ${raw(listed('f.first'))}
        FROM rollup_chunk c JOIN rollup_events f USING (run_id, tool_call_id, tgid)
        WHERE NOT EXISTS (SELECT 1 FROM timeline_processes p WHERE ${same})`,
  );
  await execute(
    connection,
    sql`INSERT INTO timeline_process_types
        SELECT run_id, tool_call_id, tgid, type, count(*) FROM ${table} GROUP BY 1, 2, 3, 4
        ON CONFLICT (run_id, tool_call_id, tgid, type) DO UPDATE SET events = events + excluded.events`,
  );
  await execute(connection, sql`DROP TABLE rollup_chunk`);
  await execute(connection, sql`DROP TABLE rollup_events`);
}

/**
 * Positions folded per transaction, at most: a fold's statements cost much the same for 10,000
 * events as for 100,000 (2.85 s of CPU for 200,000 events in chunks of 10,000, 1.5 s in chunks of
 * 100,000), and a chunk holds the write queue for well under a second. The whole events a chunk
 * reads (the first ones of new processes) are bounded by it: a fold that fails (out of memory on
 * events with large attrs, say) is retried with half the chunk, down to minChunk, and the chunk
 * grows back as folds succeed.
 */
const maxChunk = 100_000n;
const minChunk = 1_000n;
const tickMs = 1000;

/** Keeps the rollup caught up with the events committed before `endSeq()`. */
export class ProcessRollup {
  private mark = 0n;
  private endAtLastTick = -1n;
  private timer: NodeJS.Timeout | undefined;
  private chunk = maxChunk;
  private readonly trace = new StepTrace('fold');

  constructor(
    private readonly connection: StoreConnection,
    private readonly writes: WriteQueue,
    /** The next position to be handed out: every one before it is committed or never used. */
    private readonly endSeq: () => bigint,
    /** Queries being answered: a chunk's merges take memory a verify beside them needs. */
    private readonly activeQueries: () => number,
    /** Folded in with every chunk, after the process rows. */
    private readonly folds: readonly RollupFold[] = [],
  ) {
    this.paths = foldPaths(folds);
  }

  /** The attrs every fold reads. */
  private readonly paths: string[];

  /** Reads the mark, then catches up a chunk each second in which nothing was committed or asked. */
  async start(): Promise<void> {
    const [row] = await readRows<{ through_seq: bigint }>(
      this.connection,
      sql`SELECT through_seq FROM timeline_rollup_mark`,
    );
    this.mark = row?.through_seq ?? 0n;
    const tick = (): Promise<unknown> =>
      this.writes
        .run(
          async () => {
            const end = this.endSeq();
            const idle = end === this.endAtLastTick && this.activeQueries() === 0;
            this.endAtLastTick = end;
            if (idle) await this.foldChunk(end);
          },
          { housekeeping: true },
        )
        .catch((error: unknown) => {
          log('warn', 'folding events into the process rollup failed; it runs again in a second', {
            error: classifyStoreError(error),
          });
        });
    this.timer = setInterval(() => void tick(), tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * The first position whose events may not be folded in yet, or null when every committed event
   * is: a reader looks at events from there on apart. The mark moves only after its fold commits,
   * so events below it are in the rollup for any read that starts later.
   */
  unfoldedFrom(): bigint | null {
    return this.mark < this.endSeq() ? this.mark : null;
  }

  /** Folds in every event committed before now, a chunk per turn in the write queue; call before reading. */
  async catchUp(): Promise<void> {
    const end = this.endSeq();
    while (this.mark < end) await this.writes.run(() => this.foldChunk(end));
  }

  /** Folds the next chunk of positions before `end` in; call in the write queue. */
  private foldChunk(end: bigint): Promise<void> {
    const limit = this.mark + this.chunk;
    return this.foldUpTo(end < limit ? end : limit);
  }

  /**
   * Folds positions [mark, to) in, and moves the mark, in one transaction. Positions that hold no run
   * event (a host's activity waiting in the spool, loss reports) have nothing to fold: the mark moves
   * past them in memory only, and a restart looks at them again and finds the same.
   */
  private async foldUpTo(to: bigint): Promise<void> {
    if (to <= this.mark) return;
    const from = this.mark;
    if (!(await holdsRunEvents(this.connection, from, to))) {
      this.mark = to;
      return;
    }
    this.trace.begin();
    try {
      await inTransaction(this.connection, async () => {
        const where = sql`seq >= ${from} AND seq < ${to}`;
        const chunk = await this.trace.time('read', () => readFoldChunk(this.connection, where, this.paths));
        await this.trace.time('processes', () => rollUp(this.connection, chunk));
        for (const fold of this.folds)
          await this.trace.time(fold.name, () => fold.fold(this.connection, chunk));
        await execute(this.connection, sql`DROP TABLE fold_chunk`);
        await execute(this.connection, sql`UPDATE timeline_rollup_mark SET through_seq = ${to}`);
      });
    } catch (error) {
      const half = (to - from) / 2n;
      this.chunk = half > minChunk ? half : minChunk;
      throw error;
    }
    this.mark = to;
    if (to - from === this.chunk && this.chunk < maxChunk)
      this.chunk = this.chunk * 2n < maxChunk ? this.chunk * 2n : maxChunk;
    this.trace.end({ positions: Number(to - from) });
  }
}

/** Rolls up every run event again from scratch, with `folds`, in one transaction (a store grown in SQL). */
export async function rebuildProcessRollup(
  connection: StoreConnection,
  folds: readonly RollupFold[] = [],
): Promise<void> {
  await inTransaction(connection, async () => {
    await execute(connection, sql`DELETE FROM timeline_processes`);
    await execute(connection, sql`DELETE FROM timeline_process_types`);
    for (const fold of folds) await fold.clear(connection);
    const chunk = await readFoldChunk(connection, sql`TRUE`, foldPaths(folds));
    await rollUp(connection, chunk);
    for (const fold of folds) await fold.fold(connection, chunk);
    await execute(connection, sql`DROP TABLE fold_chunk`);
    await execute(
      connection,
      sql`UPDATE timeline_rollup_mark SET through_seq = (SELECT coalesce(max(seq) + 1, 0) FROM events)`,
    );
  });
}
