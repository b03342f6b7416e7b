/**
 * What a module keeps in memory of what the writer connection wrote, so a write does not read it
 * back: per connection, bounded (the least recently touched forgotten first), and forgotten whole
 * when a transaction of inTransaction rolls back (what it kept may never have been committed).
 * A miss only costs a read of the store, which holds the truth.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { onRollback } from './sql.js';

export class WriterMemo<V> {
  private readonly kept = new WeakMap<DuckDBConnection, Map<string, V>>();

  constructor(private readonly max: number) {}

  get(connection: DuckDBConnection, key: string): V | undefined {
    return this.of(connection).get(key);
  }

  /** Keeps `value` as the latest touched; past `max`, the least recently touched is forgotten. */
  set(connection: DuckDBConnection, key: string, value: V): void {
    const kept = this.of(connection);
    kept.delete(key);
    kept.set(key, value);
    if (kept.size > this.max) kept.delete(kept.keys().next().value!);
  }

  private of(connection: DuckDBConnection): Map<string, V> {
    let kept = this.kept.get(connection);
    if (kept === undefined) {
      const fresh = new Map<string, V>();
      onRollback(connection, () => fresh.clear());
      this.kept.set(connection, fresh);
      kept = fresh;
    }
    return kept;
  }
}
