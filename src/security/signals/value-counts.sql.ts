/**
 * Reads the folded values of a run (signal-values.sql.ts) for the signal groups: per kind, how many
 * distinct values and events, and the first events of its most frequent values, or the values too.
 * A run's rows lie among every run's: reading their long `value` strings (file paths) costs most of
 * such a statement, so only kinds whose values an answer lists read them.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { signalBounds } from './signal-basis.js';
import { kindCode, signalValueKinds, type SignalValueKind } from './signal-values.sql.js';

/** One value of a run and the events that have it. */
export interface ValueCount {
  value: string;
  events: number;
  /** The run's first event with it, by position. */
  firstEventId: string;
  firstSeq: bigint;
}

/** The values of one kind. */
export interface KindCounts {
  distinct: number;
  events: number;
  /** The most frequent first (ties by value), at most the limit asked. */
  top: ValueCount[];
}

/** The values of each kind; a kind the run has none of counts nothing. */
export type ValueCounts = ReadonlyMap<SignalValueKind, KindCounts>;

interface ValueRow {
  kind: number;
  value: string;
  events: bigint;
  first_seq: bigint;
  first_id: string;
  distinct_values: bigint;
  kind_events: bigint;
}

/** The run's values of `kinds`, the `limit` most frequent of each listed. */
export async function readValueCounts(
  connection: StoreConnection,
  run: string,
  kinds: readonly SignalValueKind[],
  limit: number,
): Promise<ValueCounts> {
  const rows = await readRows<ValueRow>(
    connection,
    sql`SELECT kind, value, events, first_event.seq AS first_seq, first_event.id AS first_id,
          count(*) OVER (PARTITION BY kind) AS distinct_values, sum(events) OVER (PARTITION BY kind) AS kind_events
        FROM run_signal_values WHERE run_id = ${run} AND kind IN (${raw(kinds.map(kindCode).join(', '))})
        QUALIFY row_number() OVER (PARTITION BY kind ORDER BY events DESC, value) <= ${limit}
        ORDER BY kind, events DESC, value`,
  );
  const counts = new Map<SignalValueKind, KindCounts>(
    kinds.map((kind) => [kind, { distinct: 0, events: 0, top: [] }]),
  );
  for (const row of rows) {
    const kind = counts.get(signalValueKinds[row.kind]!)!;
    kind.distinct = Number(row.distinct_values);
    kind.events = Number(row.kind_events);
    kind.top.push({
      value: row.value,
      events: Number(row.events),
      firstEventId: row.first_id,
      firstSeq: row.first_seq,
    });
  }
  return counts;
}

/** The counts of one kind (nothing when it was not read). */
export function countsOf(values: ValueCounts, kind: SignalValueKind): KindCounts {
  return values.get(kind) ?? { distinct: 0, events: 0, top: [] };
}

/** The values of one kind, counted without reading them. */
export interface KindTotals {
  distinct: number;
  events: number;
  /** The first event with each of its most frequent values, at most `bounds.basis_ids`. */
  firstEventIds: string[];
}

/** The run's values of `kinds`, counted; a kind the run has none of counts nothing. */
export async function readValueTotals(
  connection: StoreConnection,
  run: string,
  kinds: readonly SignalValueKind[],
): Promise<ReadonlyMap<SignalValueKind, KindTotals>> {
  const rows = await readRows<{ kind: number; distinct_values: bigint; events: bigint; ids: string[] }>(
    connection,
    sql`SELECT kind, count(*) AS distinct_values, sum(events) AS events,
          max_by(first_event.id, struct_pack(n := events, s := -first_event.seq), ${raw(String(signalBounds.basis_ids))}) AS ids
        FROM run_signal_values WHERE run_id = ${run} AND kind IN (${raw(kinds.map(kindCode).join(', '))})
        GROUP BY kind`,
  );
  const totals = new Map<SignalValueKind, KindTotals>(
    kinds.map((kind) => [kind, { distinct: 0, events: 0, firstEventIds: [] }]),
  );
  for (const row of rows)
    totals.set(signalValueKinds[row.kind]!, {
      distinct: Number(row.distinct_values),
      events: Number(row.events),
      firstEventIds: row.ids,
    });
  return totals;
}
