/**
 * Rows of event_batches: one Merkle root over the events a commit or a settlement added to a run,
 * committed in the same transaction as the events. They are sealed as `event_batch` objects, each
 * chained after its run's previous one, a round at a time (sealPendingBatches): with the signed
 * checkpoint that names them (checkpoints.sql.ts), 1-5 s later, on demand before verify, and
 * when the store closes. A commit so never waits on the graph: sealing each commit's batches in its
 * own transaction cost ingest a tenth of its rate. A batch seals the events of its run with seq in
 * [seqFrom, seqTo).
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import { appendToChains } from './graph-chains.sql.js';
import { execute, list, readRows, sql, unnested } from '../store/sql.js';
import { WriterMemo } from '../store/writer-memo.js';

/** One digest row; `runId` null for a batch's spooled events (not sealed: they belong to no run yet). */
export interface DigestRow {
  batchId: string;
  runId: string | null;
  events: number;
  merkleRoot: string;
  seqFrom: bigint;
  seqTo: bigint;
  /** The policy's decisions on the events and their root; null where unknown (batches made before format 10). */
  judged: number | null;
  judgmentRoot: string | null;
}

/** Off only under PROVD_FAULT_NO_SEALING (one store thread per process: set once at its start). */
let sealing = true;

/** Digests are never sealed from now on, so benchmarks can measure sealing's cost. */
export function stopSealing(): void {
  sealing = false;
}

/** Inserts digest rows, stamped now, unsealed: sealPendingBatches seals those of runs. */
export async function insertDigests(connection: StoreConnection, rows: readonly DigestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await execute(
    connection,
    sql`INSERT INTO event_batches (batch_id, run_id, events, merkle_root, committed_ns, seq_from, seq_to,
          object_hash, judged, judgment_root)
        SELECT ${unnested(
          [rows.map((row) => row.batchId), VARCHAR],
          [rows.map((row) => row.runId), VARCHAR],
          [rows.map((row) => BigInt(row.events)), BIGINT],
          [rows.map((row) => row.merkleRoot), VARCHAR],
        )}, ${BigInt(Date.now()) * 1_000_000n}, ${unnested(
          [rows.map((row) => row.seqFrom), BIGINT],
          [rows.map((row) => row.seqTo), BIGINT],
        )}, NULL, ${unnested(
          [rows.map((row) => (row.judged === null ? null : BigInt(row.judged))), BIGINT],
          [rows.map((row) => row.judgmentRoot), VARCHAR],
        )}`,
  );
}

/**
 * Where the writer's last seal left off: every digest of a run starting below it is sealed. Positions
 * are handed out in commit order (a settlement's too), so later digests start past it. Forgotten when
 * a transaction rolls back: the next seal looks from the start again.
 */
const sealedBelow = new WriterMemo<bigint>(1);

/**
 * Seals every digest of a run that is not sealed yet, in commit (seq) order, as event_batch objects
 * chained after their runs' previous ones, and has each digest row name its object; returns how many.
 * Call inside a write transaction.
 */
export async function sealPendingBatches(connection: StoreConnection): Promise<number> {
  if (!sealing) return 0;
  const from = sealedBelow.get(connection, '') ?? -1n;
  const rows = await readRows<{
    batch_id: string;
    run_id: string;
    events: bigint;
    merkle_root: string;
    seq_from: bigint;
    seq_to: bigint;
    judged: bigint | null;
    judgment_root: string | null;
  }>(
    connection,
    sql`SELECT batch_id, run_id, events, merkle_root, seq_from, seq_to, judged, judgment_root FROM event_batches
        WHERE seq_from >= ${from} AND object_hash IS NULL AND run_id IS NOT NULL AND events > 0
        ORDER BY seq_from, batch_id, run_id`,
  );
  if (rows.length === 0) return 0;
  const sealed = await appendToChains(
    connection,
    rows.map((row) => ({
      runId: row.run_id,
      chain: 'event_batch',
      build: (previous, index) => ({
        kind: 'event_batch',
        run_id: row.run_id,
        parents: [previous],
        payload: {
          index,
          batch_id: row.batch_id,
          events: Number(row.events),
          merkle_root: row.merkle_root,
          seq_from: row.seq_from.toString(),
          seq_to: row.seq_to.toString(),
          // the policy's decisions on these events, signed with them (absent before format 10)
          ...(row.judged !== null && { judged: Number(row.judged), judgment_root: row.judgment_root }),
        },
      }),
    })),
  );
  await execute(
    connection,
    sql`UPDATE event_batches SET object_hash = v.object_hash
        FROM (SELECT ${unnested(
          [rows.map((row) => row.batch_id), VARCHAR],
          [rows.map((row) => row.run_id), VARCHAR],
          [rows.map((row) => row.seq_from), BIGINT],
          [sealed.map((object) => object.hash), VARCHAR],
        )}) v(batch_id, run_id, seq_from, object_hash)
        WHERE event_batches.batch_id = v.batch_id AND event_batches.run_id = v.run_id
          AND event_batches.seq_from = v.seq_from`,
  );
  sealedBelow.set(connection, '', rows[rows.length - 1]!.seq_from + 1n);
  for (const row of rows) {
    const total = sealedTotals.get(connection, row.run_id);
    if (total !== undefined) sealedTotals.set(connection, row.run_id, total + Number(row.events));
  }
  return rows.length;
}

/**
 * Events each run has sealed, as the writer read or sealed them: a checkpoint counts them, and
 * summing the run's batches every round would read more the longer the run lives.
 */
const sealedTotals = new WriterMemo<number>(10_000);

/** How many events each of `runIds` has sealed in its batches; call on the writer. */
export async function sealedEventCounts(
  connection: StoreConnection,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const missing = runIds.filter((runId) => {
    const total = sealedTotals.get(connection, runId);
    if (total !== undefined) counts.set(runId, total);
    return total === undefined;
  });
  if (missing.length === 0) return counts;
  const rows = await readRows<{ run_id: string; n: bigint }>(
    connection,
    sql`SELECT run_id, sum(events)::BIGINT AS n FROM event_batches
        WHERE object_hash IS NOT NULL AND run_id IN (SELECT unnest(${list(missing, VARCHAR)}))
        GROUP BY run_id`,
  );
  const read = new Map(rows.map((row) => [row.run_id, Number(row.n)]));
  for (const runId of missing) {
    const total = read.get(runId) ?? 0;
    counts.set(runId, total);
    sealedTotals.set(connection, runId, total);
  }
  return counts;
}
