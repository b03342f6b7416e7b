/**
 * A producer counter's increment, as the normalize workers, the spool and the hook endpoint count
 * it, and their sum per counter. Pure: the workers tally increments without loading DuckDB
 * (producer-counters.sql.ts adds them to the table).
 */
/** One counter increment: `accepted` per source, `invalid` per rejection code, spool outcomes. */
export interface CounterDelta {
  source: string;
  counter: string;
  value: number;
}

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
