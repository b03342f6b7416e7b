/**
 * Runs stored before the graph existed (store format 4 and older) have events but no run object
 * and no sealed batches. At start, each such run gets its run object and its events sealed in
 * event_batch objects of up to `chunkEvents` events, in seq order, so verify covers them like any
 * other run. The seal says what it is: the hashes were taken at upgrade, not at ingest.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { inTransaction, readRows, sql } from '../store/sql.js';
import type { WriteQueue } from '../store/write-queue.js';
import { ensureRun } from './graph-chains.sql.js';
import { merkleRoot } from './merkle.js';
import { insertDigests } from './seal-batches.sql.js';

const chunkEvents = 100_000;

/** Seals every run without a run object; returns how many runs it sealed. */
export async function sealLegacyRuns(connection: StoreConnection, writes: WriteQueue): Promise<number> {
  const runs = await readRows<{ run_id: string; first_seen_ns: bigint }>(
    connection,
    sql`SELECT run_id, first_seen_ns FROM runs WHERE object_hash IS NULL ORDER BY first_seen_ns`,
  );
  for (const run of runs) {
    await writes.run(() =>
      inTransaction(connection, async () => {
        await ensureRun(connection, run.run_id, run.first_seen_ns);
        let from = -1n;
        for (;;) {
          const rows = await readRows<{ seq: bigint; hash: string }>(
            connection,
            sql`SELECT seq, hash FROM events WHERE run_id = ${run.run_id} AND seq > ${from}
                ORDER BY seq LIMIT ${chunkEvents}`,
          );
          if (rows.length === 0) break;
          const seqFrom = rows[0]!.seq;
          const seqTo = rows[rows.length - 1]!.seq + 1n;
          await insertDigests(connection, [
            {
              batchId: `upgrade-${seqFrom}`,
              runId: run.run_id,
              events: rows.length,
              merkleRoot: merkleRoot(rows.map((row) => row.hash)),
              seqFrom,
              seqTo,
              judged: null, // stored before the policy judged events
              judgmentRoot: null,
            },
          ]);
          from = seqTo - 1n;
        }
      }),
    );
  }
  return runs.length;
}
