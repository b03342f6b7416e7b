/**
 * The binaries a run executed (the paths of its execve events, folded in signal-values.sql.ts), and
 * which of them are new: executed by no run the store first saw before this one (runs.first_seen).
 * The run's most executed binaries, at most `compared_binaries`, are looked up among the earlier
 * runs' folded binaries: the work grows with the distinct binaries of the store, not its events.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { raw, readRows, sql } from '../../store/sql.js';
import type { BinarySignals, ExecutedBinary } from './behaviour-signals.js';
import { basis, signalBounds } from './signal-basis.js';
import { kindCode } from './signal-values.sql.js';

interface BinaryRow {
  path: string;
  execs: bigint;
  first_seq: bigint;
  first_id: string;
  seen: boolean;
}

const binary = raw(String(kindCode('binary')));

/** The run's binaries; `execs` is its count of execve events. */
export async function readBinaries(
  connection: StoreConnection,
  run: string,
  execs: number,
): Promise<BinarySignals> {
  const [row] = await readRows<{
    earlier_runs: bigint;
    distinct_values: bigint;
    binaries: BinaryRow[] | null;
  }>(
    connection,
    sql`WITH mine AS (
          SELECT value_key, value, events, first_event FROM run_signal_values
          WHERE run_id = ${run} AND kind = ${binary} ORDER BY events DESC, value LIMIT ${signalBounds.compared_binaries}),
        earlier AS (
          SELECT run_id FROM runs WHERE first_seen_ns < (SELECT first_seen_ns FROM runs WHERE run_id = ${run})),
        seen AS (
          SELECT DISTINCT value_key FROM run_signal_values
          WHERE kind = ${binary} AND run_id IN (SELECT run_id FROM earlier) AND value_key IN (SELECT value_key FROM mine))
        SELECT (SELECT count(*) FROM earlier) AS earlier_runs,
          (SELECT count(*) FROM run_signal_values WHERE run_id = ${run} AND kind = ${binary}) AS distinct_values,
          (SELECT list(struct_pack(path := value, execs := events, first_seq := first_event.seq,
              first_id := first_event.id, seen := value_key IN (SELECT value_key FROM seen))
            ORDER BY events DESC, value) FROM mine) AS binaries`,
  );
  const rows = row?.binaries ?? [];
  const item = (binary: BinaryRow): ExecutedBinary => ({
    path: binary.path,
    execs: Number(binary.execs),
    first_event_id: binary.first_id,
    new: !binary.seen,
  });
  const fresh = rows.filter((binary) => !binary.seen).sort((a, b) => (a.first_seq < b.first_seq ? -1 : 1));
  const distinct = Number(row?.distinct_values ?? 0);
  return {
    execs,
    distinct,
    top: rows.slice(0, signalBounds.list_items).map(item),
    new: {
      earlier_runs: Number(row?.earlier_runs ?? 0),
      compared: rows.length,
      count: fresh.length,
      binaries: fresh.slice(0, signalBounds.list_items).map(item),
      basis: basis(
        ['run_signal_values', 'runs'],
        "the run's binaries that no run first seen before it executed; events: the first execve of each, first executed first",
        { events: fresh.map((binary) => binary.first_id) },
      ),
    },
    basis: basis(
      ['windows', 'run_signal_values'],
      "execs: the run's execve events; distinct: their attrs.path; events: the first execve of the most executed",
      { events: rows.map((binary) => binary.first_id) },
    ),
  };
}
