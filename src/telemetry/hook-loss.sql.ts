/**
 * What the hook transport could not deliver, where producer health and coverage gaps report it:
 * hook events that reached no daemon (read back from the hook spool at start) are one coverage gap
 * of kind `hook_daemon_down` per run, from the first to the last such event, and counters of
 * source `hook_spool`; requests the hook socket refused are counters of source `hook_socket`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, inTransaction, sql } from '../store/sql.js';
import { addCounters, type CounterDelta } from './producer-counters.sql.js';

/** The hook events of one run (null: events whose run could not be read) that reached no daemon. */
export interface HookGap {
  run_id: string | null;
  /** Unix nanoseconds (decimal string) of the first and the last event the client spooled. */
  start_ns: string;
  end_ns: string;
  /** Events that reached no daemon in time: stored late from the spool, or lost. */
  events: number;
  /** What the spool says of them: stored, overflowed (time only), unreadable, and so on. */
  detail: Record<string, number | string>;
}

/** One write of hook losses: gaps and counter increments, in one transaction. */
export interface HookLoss {
  gaps: HookGap[];
  counters: CounterDelta[];
}

/** Records the gaps and adds the counters. */
export async function recordHookLoss(
  connection: DuckDBConnection,
  loss: HookLoss,
): Promise<{ gaps: number }> {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  await inTransaction(connection, async () => {
    for (const [index, gap] of loss.gaps.entries()) {
      const id = `gap_hook_${nowNs}_${index}`;
      await execute(
        connection,
        sql`INSERT INTO coverage_gaps VALUES (${id}, ${gap.run_id}, 'hook_daemon_down', 'hook_spool',
            ${BigInt(gap.start_ns)}, ${BigInt(gap.end_ns)}, ${gap.events}, NULL, ${JSON.stringify(gap.detail)},
            ${nowNs})`,
      );
    }
    await addCounters(connection, loss.counters);
  });
  return { gaps: loss.gaps.length };
}
