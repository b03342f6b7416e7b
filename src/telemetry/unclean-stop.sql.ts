/**
 * What a daemon killed with its sensor on (SIGKILL, a crash, the host's power) lost, recorded at the
 * next start: the records its sensor had read from the kernel but not yet committed (a batch is
 * handed over within 1 s, and its commit lingers up to 5 s for others: event-commit.sql.ts) are gone,
 * and how many is not known. One coverage gap of kind `sensor_unclean_stop`, from the capture time of
 * the last sensor event that daemon stored to this start, with `lost_events` unknown (NULL), and the
 * producer counter `unclean_stops` of `provd_sensor`.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { sourceCode } from '../model/codes.js';
import { execute, inTransaction, readRows, sql } from '../store/sql.js';
import { addCounters } from './producer-counters.sql.js';

/** The sensor mark a daemon left (src/sensor/sensor-mark.ts), and when this one found it. */
export interface UncleanStop {
  /** The killed daemon's pid, and when its sensor started (Unix ns, decimal). */
  pid: number;
  started_ns: string;
  /** This daemon's start (Unix ns, decimal): the kill came before it. */
  found_ns: string;
}

/** Records the gap and counts the stop; returns the gap's window. */
export async function recordUncleanStop(
  connection: StoreConnection,
  stop: UncleanStop,
): Promise<{ start_ns: string; end_ns: string }> {
  const startedNs = BigInt(stop.started_ns);
  const foundNs = BigInt(stop.found_ns);
  const id = `gap_unclean_stop_${stop.pid}_${stop.started_ns}`;
  return inTransaction(connection, async () => {
    // the mark is removed once this commits: a start that died in between finds it again
    const [recorded] = await readRows<{ start_ns: bigint; end_ns: bigint }>(
      connection,
      sql`SELECT start_ns, end_ns FROM coverage_gaps WHERE id = ${id}`,
    );
    if (recorded !== undefined)
      return { start_ns: recorded.start_ns.toString(), end_ns: recorded.end_ns.toString() };
    // the last capture the killed daemon's sensor stored: what it read after that may be lost
    const [last] = await readRows<{ time_ns: bigint | null }>(
      connection,
      sql`SELECT max(time_ns) AS time_ns FROM events
          WHERE source = ${sourceCode('provd_sensor')} AND ingested_ns >= ${startedNs}`,
    );
    const lastStoredNs = last?.time_ns ?? null;
    const startNs = lastStoredNs === null || lastStoredNs < startedNs ? startedNs : lastStoredNs;
    const endNs = foundNs < startNs ? startNs : foundNs;
    const detail = {
      reason: 'the daemon stopped without a clean shutdown while its sensor ran (SIGKILL, a crash)',
      pid: stop.pid,
      sensor_started_ns: stop.started_ns,
      last_stored_ns: lastStoredNs === null ? null : lastStoredNs.toString(),
    };
    await execute(
      connection,
      sql`INSERT INTO coverage_gaps VALUES (${id}, NULL, 'sensor_unclean_stop', 'provd_sensor', ${startNs},
          ${endNs}, NULL, NULL, ${JSON.stringify(detail)}, ${foundNs})`,
    );
    await addCounters(connection, [{ source: 'provd_sensor', counter: 'unclean_stops', value: 1 }]);
    return { start_ns: startNs.toString(), end_ns: endNs.toString() };
  });
}
