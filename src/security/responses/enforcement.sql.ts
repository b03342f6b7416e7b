/**
 * An enforcement: what provd really did on a kill decision, one row of `enforcements`
 * (sql/010_responses.sql). Built by the kill switch on the main thread, stored by the store thread.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { execute, sql } from '../../store/sql.js';
import { noteCommandRun } from '../../provenance/record/command-runs.sql.js';
import type { PolicyKill } from '../../provenance/record/kill-watch.js';

/** One kill provd carried out (or tried to) on a command it runs. */
export interface Enforcement {
  eventId: string;
  runId: string;
  toolCallId: string;
  bindingId: string;
  ruleId: string;
  action: 'kill';
  targetKind: 'cgroup' | 'process_group';
  targetId: string;
  outcome: PolicyKill['outcome'];
  processesKilled: number | null;
  message: string;
  /** When it was done, Unix ns. */
  enforcedNs: bigint;
}

/** Stores one enforcement (call inside the write queue). */
export async function insertEnforcement(connection: StoreConnection, row: Enforcement): Promise<void> {
  noteCommandRun(connection, row.runId);
  await execute(
    connection,
    sql`INSERT INTO enforcements VALUES (${row.eventId}, ${row.runId}, ${row.toolCallId}, ${row.bindingId},
        ${row.ruleId}, ${row.action}, ${row.targetKind}, ${row.targetId}, ${row.outcome},
        ${row.processesKilled}, ${row.message}, ${row.enforcedNs})`,
  );
}
