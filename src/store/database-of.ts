/**
 * Which database a connection reaches: what a module keeps of a whole database (not of one
 * connection) is keyed by it, so a process holding two databases, or one reopened after DuckDB
 * gave it up, never answers one from what it kept of another.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

const databases = new WeakMap<DuckDBConnection, DuckDBInstance>();

/** Opens a connection to `instance` that databaseOf knows. */
export async function connectTo(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  databases.set(connection, instance);
  return connection;
}

/** The database `connection` reaches; a connection not opened by connectTo stands for its own. */
export function databaseOf(connection: DuckDBConnection): object {
  return databases.get(connection) ?? connection;
}
