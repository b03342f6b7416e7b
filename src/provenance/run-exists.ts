/** The 404 for a run nobody bound: every per-run query checks it first. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../shared/errors.js';
import { readRows, sql } from '../store/sql.js';

/** Throws run_not_found unless a record, binding or object has named the run. */
export async function requireRun(connection: DuckDBConnection, runId: string): Promise<void> {
  const rows = await readRows(connection, sql`SELECT 1 FROM runs WHERE run_id = ${runId}`);
  if (rows.length === 0) throw runNotFound(runId);
}

/** The run_not_found error for a run nobody named. */
export function runNotFound(runId: string): ProvdError {
  return new ProvdError('run_not_found', `no run "${runId}" is known`);
}
