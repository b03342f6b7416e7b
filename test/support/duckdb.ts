/** Opens a stopped daemon's DuckDB file directly, to set up or inspect states the tests need. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** Runs `fn` on a connection to the file, then closes it (the daemon must not be running on it). */
export async function withDatabase<T>(
  path: string,
  fn: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Rows of a query as plain JS objects. */
export async function queryRows(
  connection: DuckDBConnection,
  sql: string,
): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJS();
}

/** sha256 of a file's bytes, to prove it was not modified. */
export function fileDigest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
