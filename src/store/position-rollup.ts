/**
 * A rollup of the run events, folded in by the store actor behind the commits, never inside them:
 * ingest is the hot path. A persisted mark says up to which position the events are folded in;
 * positions are handed out once and in order (a late-claimed event gets a new one when it joins its
 * run), so every event is folded exactly once. The rollup catches up while ingest is idle, a bounded
 * chunk per second, and whole (chunk by chunk) before a query reads it. What a rollup holds is its
 * spec's: the timeline's processes (telemetry/timeline/process-rollup.ts), a run's behaviour
 * (security/baseline/behaviour-rollup.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { log } from '../shared/log.js';
import { execute, inTransaction, raw, readRows, sql, type Statement } from './sql.js';
import { classifyStoreError } from './store-error.js';
import type { WriteQueue } from './write-queue.js';

/** What one rollup folds, and where it keeps its mark. */
export interface RollupSpec {
  /** Names the rollup in log lines ("process rollup"). */
  name: string;
  /** The one-row table holding `through_seq`: a code constant, spliced into statements. */
  markTable: string;
  /** The tables it fills, emptied by a rebuild: code constants. */
  tables: readonly string[];
  /** Positions folded per transaction: bounds the memory a fold takes. */
  chunk: bigint;
  /** Folds the run events selected by `where` (over `events`) in; runs inside the caller's transaction. */
  fold(connection: DuckDBConnection, where: Statement): Promise<void>;
}

const tickMs = 1000;

/** Keeps one rollup caught up with the events committed before `endSeq()`. */
export class PositionRollup {
  private mark = 0n;
  private endAtLastTick = -1n;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly writes: WriteQueue,
    /** The next position to be handed out: every one before it is committed or never used. */
    private readonly endSeq: () => bigint,
    /** Queries being answered: a chunk's merges take memory a query beside them needs. */
    private readonly activeQueries: () => number,
    private readonly spec: RollupSpec,
  ) {}

  /** Reads the mark, then catches up a chunk each second in which nothing was committed or asked. */
  async start(): Promise<void> {
    const [row] = await readRows<{ through_seq: bigint }>(
      this.connection,
      sql`SELECT through_seq FROM ${raw(this.spec.markTable)}`,
    );
    this.mark = row?.through_seq ?? 0n;
    const tick = (): Promise<unknown> =>
      this.writes
        .run(async () => {
          const end = this.endSeq();
          const idle = end === this.endAtLastTick && this.activeQueries() === 0;
          this.endAtLastTick = end;
          if (idle) await this.foldChunk(end);
        })
        .catch((error: unknown) => {
          log('warn', `folding events into the ${this.spec.name} failed; it runs again in a second`, {
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
    return this.foldUpTo(end < this.mark + this.spec.chunk ? end : this.mark + this.spec.chunk);
  }

  /** Folds positions [mark, to) in, and moves the mark, in one transaction. */
  private async foldUpTo(to: bigint): Promise<void> {
    if (to <= this.mark) return;
    const from = this.mark;
    await inTransaction(this.connection, async () => {
      await this.spec.fold(this.connection, sql`seq >= ${from} AND seq < ${to}`);
      await execute(this.connection, sql`UPDATE ${raw(this.spec.markTable)} SET through_seq = ${to}`);
    });
    this.mark = to;
  }
}

/** Folds every run event in again from scratch, in one transaction (a store grown in SQL). */
export async function rebuildRollup(connection: DuckDBConnection, spec: RollupSpec): Promise<void> {
  await inTransaction(connection, async () => {
    for (const table of spec.tables) await execute(connection, sql`DELETE FROM ${raw(table)}`);
    await spec.fold(connection, sql`TRUE`);
    await execute(
      connection,
      sql`UPDATE ${raw(spec.markTable)} SET through_seq = (SELECT coalesce(max(seq) + 1, 0) FROM events)`,
    );
  });
}
