/**
 * The runs holding a command provd ran (an executed tool call of POST /v1/record, or a kill provd
 * carried out on one), kept per database on the store thread: a risks, responses or timeline page
 * reads what provd did about its tool calls (security/responses/command-facts.sql.ts) only for such
 * a run, and a run without one, most runs, pays no statement for it (the two reads cost a risks
 * page about 40% of its time). A superset at every moment: a writer notes a run before its write
 * commits, and the first read loads what the store held, merged with what was noted meanwhile.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { databaseOf } from '../../store/database-of.js';
import { readRows, sql } from '../../store/sql.js';

interface CommandRuns {
  runs: Set<string>;
  /** The load of what the store held, once begun; null until then, or after it failed. */
  loading: Promise<void> | null;
}

const kept = new WeakMap<object, CommandRuns>();

function commandRunsOf(connection: DuckDBConnection): CommandRuns {
  const database = databaseOf(connection);
  let state = kept.get(database);
  if (state === undefined) kept.set(database, (state = { runs: new Set(), loading: null }));
  return state;
}

/** Notes that `run` holds a command provd ran; call before the write that stores it commits. */
export function noteCommandRun(connection: DuckDBConnection, run: string): void {
  commandRunsOf(connection).runs.add(run);
}

/** Whether `run` may hold a command provd ran (false: it holds none). */
export async function mayHoldCommands(connection: DuckDBConnection, run: string): Promise<boolean> {
  const state = commandRunsOf(connection);
  state.loading ??= readRows<{ run_id: string }>(
    connection,
    sql`SELECT DISTINCT run_id FROM tool_calls WHERE json_extract(record, '$.executed')::BOOLEAN
        UNION SELECT DISTINCT run_id FROM enforcements`,
  ).then(
    (rows) => {
      for (const row of rows) state.runs.add(row.run_id);
    },
    (error: unknown) => {
      state.loading = null; // the next read tries again
      throw error;
    },
  );
  await state.loading;
  return state.runs.has(run);
}
