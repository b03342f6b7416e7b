/**
 * A private in-memory DuckDB for a process that holds no store (the CLI checking an export bundle):
 * it opens no file, so it can never be a second instance on the daemon's database.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from './duckdb-api.js';

/** Runs `body` on a fresh in-memory database, closed afterwards whatever `body` did. */
export async function withMemoryDatabase<T>(body: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    try {
      return await body(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
