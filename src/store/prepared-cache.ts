/**
 * Prepared statements kept per connection and statement text, so a repeated read skips preparing:
 * one round trip to DuckDB's thread fewer (each costs a thread wake-up, which a busy host delays).
 * A statement is taken out while it runs, so two reads of one text at once never share it.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/** Statements kept per connection; the least recently used goes first. */
const maxKept = 64;

const kept = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

/** A prepared statement of `text`: a kept one that is idle, else a new one. Give it back with `release`. */
export async function takePrepared(
  connection: DuckDBConnection,
  text: string,
): Promise<DuckDBPreparedStatement> {
  const idle = kept.get(connection);
  const prepared = idle?.get(text);
  if (prepared === undefined) return connection.prepare(text);
  idle!.delete(text);
  return prepared;
}

/** Keeps `prepared` for the next read of `text`; one that failed is destroyed instead. */
export function releasePrepared(
  connection: DuckDBConnection,
  text: string,
  prepared: DuckDBPreparedStatement,
  failed: boolean,
): void {
  let idle = kept.get(connection);
  if (idle === undefined) kept.set(connection, (idle = new Map<string, DuckDBPreparedStatement>()));
  if (failed || idle.has(text)) {
    prepared.destroySync();
    return;
  }
  idle.set(text, prepared);
  if (idle.size > maxKept) {
    const [oldest, statement] = idle.entries().next().value!;
    idle.delete(oldest);
    statement.destroySync();
  }
}
