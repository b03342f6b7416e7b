/**
 * Rows of event_batches: one Merkle root over the events a commit or a settlement added to a run,
 * each sealed as an `event_batch` object chained after the run's previous one, in the same
 * transaction as the events. A batch seals the events of its run with seq in [seqFrom, seqTo).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { appendToChains } from './graph-chains.js';
import { execute, sql, unnested } from '../store/sql.js';

/** One digest row; `runId` null for a batch's spooled events (not sealed: they belong to no run yet). */
export interface DigestRow {
  batchId: string;
  runId: string | null;
  events: number;
  merkleRoot: string;
  seqFrom: bigint;
  seqTo: bigint;
}

/** Off only under PROVD_FAULT_NO_SEALING (one store thread per process: set once at its start). */
let sealing = true;

/** Digests are inserted from now on without event_batch objects, so benchmarks can measure sealing's cost. */
export function stopSealing(): void {
  sealing = false;
}

/** Inserts digest rows, stamped now, and seals those of runs into their runs' event_batch chains. */
export async function insertDigests(connection: DuckDBConnection, rows: readonly DigestRow[]): Promise<void> {
  if (rows.length === 0) return;
  const ofRuns = sealing ? rows.filter((row) => row.runId !== null && row.events > 0) : [];
  const sealed = await appendToChains(
    connection,
    ofRuns.map((row) => ({
      runId: row.runId!,
      chain: 'event_batch',
      build: (previous, index) => ({
        kind: 'event_batch',
        run_id: row.runId!,
        parents: [previous],
        payload: {
          index,
          batch_id: row.batchId,
          events: row.events,
          merkle_root: row.merkleRoot,
          seq_from: row.seqFrom.toString(),
          seq_to: row.seqTo.toString(),
        },
      }),
    })),
  );
  const objectOf = new Map(ofRuns.map((row, i) => [row, sealed[i]!.hash]));
  await execute(
    connection,
    sql`INSERT INTO event_batches (batch_id, run_id, events, merkle_root, committed_ns, seq_from, seq_to, object_hash)
        SELECT ${unnested(
          [rows.map((row) => row.batchId), VARCHAR],
          [rows.map((row) => row.runId), VARCHAR],
          [rows.map((row) => BigInt(row.events)), BIGINT],
          [rows.map((row) => row.merkleRoot), VARCHAR],
        )}, ${BigInt(Date.now()) * 1_000_000n}, ${unnested(
          [rows.map((row) => row.seqFrom), BIGINT],
          [rows.map((row) => row.seqTo), BIGINT],
          [rows.map((row) => objectOf.get(row) ?? null), VARCHAR],
        )}`,
  );
}
