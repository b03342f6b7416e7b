/**
 * The runs holding something most runs lack (a command provd ran, a decision of the gate on a tool
 * call), kept per database on the store thread, so that a page of a run without it pays no
 * statement to find none. A superset at every moment: a writer notes a run before its write
 * commits (a write rolled back leaves it noted: one read more, never one missed), and the first
 * question loads what the store held, merged with what was noted meanwhile.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { databaseOf } from './database-of.js';
import { readRows, type Statement } from './sql.js';

interface Held {
  runs: Set<string>;
  /** The load of what the store held, once begun; null until then, or after it failed. */
  loading: Promise<void> | null;
}

export class RunsHolding {
  private readonly kept = new WeakMap<object, Held>();

  /** `load` selects the `run_id` of every run the store holds it in. */
  constructor(private readonly load: Statement) {}

  /** Notes that `run` holds it; call before the write that stores it commits. */
  note(connection: DuckDBConnection, run: string): void {
    this.of(connection).runs.add(run);
  }

  /** Whether `run` may hold it (false: it holds none). */
  async mayHold(connection: DuckDBConnection, run: string): Promise<boolean> {
    const held = this.of(connection);
    held.loading ??= readRows<{ run_id: string }>(connection, this.load).then(
      (rows) => {
        for (const row of rows) held.runs.add(row.run_id);
      },
      (error: unknown) => {
        held.loading = null; // the next question tries again
        throw error;
      },
    );
    await held.loading;
    return held.runs.has(run);
  }

  private of(connection: DuckDBConnection): Held {
    const database = databaseOf(connection);
    let held = this.kept.get(database);
    if (held === undefined) this.kept.set(database, (held = { runs: new Set(), loading: null }));
    return held;
  }
}
