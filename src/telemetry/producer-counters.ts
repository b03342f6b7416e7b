/**
 * Producer counters (table producer_counters): what each source sent and what became of it, never
 * reset. Workers and the spool produce increments; the store adds them up within a transaction.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { execute, sql, unnested } from '../store/sql.js';

/** One counter increment: `accepted` per source, `invalid` per rejection code, spool outcomes. */
export interface CounterDelta {
  source: string;
  counter: string;
  value: number;
}

/** Rejected lines have no trustworthy source: they are counted under this one. */
export const unknownSource = 'unparsed';

/** Sums increments of the same counter. */
export function mergeCounters(deltas: readonly CounterDelta[]): CounterDelta[] {
  const merged = new Map<string, CounterDelta>();
  for (const delta of deltas) {
    const key = `${delta.source}\u0000${delta.counter}`;
    const row = merged.get(key);
    if (row === undefined) merged.set(key, { ...delta });
    else row.value += delta.value;
  }
  return [...merged.values()];
}

/** Adds increments to their counters, creating counters as needed. */
export async function addCounters(
  connection: DuckDBConnection,
  deltas: readonly CounterDelta[],
): Promise<void> {
  const counters = mergeCounters(deltas);
  if (counters.length === 0) return;
  await execute(
    connection,
    sql`INSERT INTO producer_counters SELECT ${unnested(
      [counters.map((c) => c.source), VARCHAR],
      [counters.map((c) => c.counter), VARCHAR],
      [counters.map((c) => BigInt(c.value)), BIGINT],
    )}, ${BigInt(Date.now()) * 1_000_000n}
        ON CONFLICT (source, counter) DO UPDATE SET
          value = value + excluded.value, updated_ns = excluded.updated_ns`,
  );
}
