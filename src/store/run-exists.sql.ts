/** The 404 for a run nobody bound: every per-run query checks it first. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../shared/errors.js';
import { readRows, sql } from './sql.js';

/** Runs each connection found: a run, once named, is never removed, so a found one needs no second read. */
const known = new WeakMap<DuckDBConnection, Set<string>>();
/** Runs remembered per connection; past it the memo starts afresh. */
const maxKnown = 10_000;

/** Throws run_not_found unless a record, binding or object has named the run. */
export async function requireRun(connection: DuckDBConnection, runId: string): Promise<void> {
  if (known.get(connection)?.has(runId) === true) return;
  const rows = await readRows(connection, sql`SELECT 1 FROM runs WHERE run_id = ${runId}`);
  if (rows.length === 0) throw runNotFound(runId);
  let runs = known.get(connection);
  if (runs === undefined || runs.size >= maxKnown) known.set(connection, (runs = new Set()));
  runs.add(runId);
}

/** The run_not_found error for a run nobody named. */
export function runNotFound(runId: string): ProvdError {
  return new ProvdError('run_not_found', `no run "${runId}" is known`);
}
