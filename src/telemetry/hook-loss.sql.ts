/**
 * What the hook transport could not deliver, where producer health and coverage gaps report it:
 * hook events that reached no daemon (read back from the hook spool at start) are one coverage gap
 * of kind `hook_daemon_down` per run, from the first to the last such event, and counters of
 * source `hook_spool`; PreToolUse events answered and then not stored are gaps of kind
 * `hook_store_failed` and a counter of source `hook_store` (agents/unstored-hooks.ts); requests the
 * hook socket refused are counters of source `hook_socket`.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { execute, inTransaction, sql } from '../store/sql.js';
import type { CounterDelta } from './counter-delta.js';
import { addCounters } from './producer-counters.sql.js';

/** The source each kind of hook gap is recorded under, as its counters are. */
const gapSources = { hook_daemon_down: 'hook_spool', hook_store_failed: 'hook_store' } as const;

/**
 * The hook events of one run (null: events whose run could not be read) that reached no daemon
 * (`hook_daemon_down`), or were answered and then not stored (`hook_store_failed`).
 */
export interface HookGap {
  kind: keyof typeof gapSources;
  run_id: string | null;
  /** Unix nanoseconds (decimal string) of the first and the last event the client spooled. */
  start_ns: string;
  end_ns: string;
  /** Events that reached no daemon in time (stored late from the spool, or lost), or not stored. */
  events: number;
  /** What became of them: the spool's outcomes (stored, overflowed...), the calls not stored. */
  detail: Record<string, number | string | string[]>;
}

/** One write of hook losses: gaps and counter increments, in one transaction. */
export interface HookLoss {
  gaps: HookGap[];
  counters: CounterDelta[];
}

let gapsWritten = 0;

/** Records the gaps and adds the counters. */
export async function recordHookLoss(connection: StoreConnection, loss: HookLoss): Promise<{ gaps: number }> {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  await inTransaction(connection, async () => {
    for (const gap of loss.gaps) {
      // unique within the process: two writes may come in one millisecond
      const id = `gap_hook_${nowNs}_${gapsWritten++}`;
      await execute(
        connection,
        sql`INSERT INTO coverage_gaps VALUES (${id}, ${gap.run_id}, ${gap.kind}, ${gapSources[gap.kind]},
            ${BigInt(gap.start_ns)}, ${BigInt(gap.end_ns)}, ${gap.events}, NULL, ${JSON.stringify(gap.detail)},
            ${nowNs})`,
      );
    }
    await addCounters(connection, loss.counters);
  });
  return { gaps: loss.gaps.length };
}
