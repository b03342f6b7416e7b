/**
 * Verification of a run's events against its sealed batches: every event's hash recomputed from its
 * stored facts, every batch's count and Merkle root recomputed over the events it seals (the run's
 * events with seq in [seq_from, seq_to), in seq order), and every event sealed by some batch.
 * Events are read in seq order a chunk at a time, so a run of millions never sits in memory.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { raw, readRows, sql } from '../store/sql.js';
import { merkleRoot } from './merkle.js';
import type { VerifyIssues } from './verify-issues.js';

/** How an event's hash is recomputed from its row: the telemetry domain supplies it (store worker). */
export interface EventRecheck {
  /** Columns to select (a constant list, never user input). */
  columns: string;
  rehash(row: never): string;
}

/** What a sealed batch claims. */
export interface SealedBatch {
  hash: string;
  seqFrom: bigint;
  seqTo: bigint;
  events: number;
  merkleRoot: string;
}

const chunkRows = 50_000;

/** Checks the run's events against its batches; returns how many events were checked. */
export async function verifyEvents(
  connection: DuckDBConnection,
  runId: string,
  batches: readonly SealedBatch[],
  recheck: EventRecheck,
  issues: VerifyIssues,
): Promise<number> {
  const ordered = [...batches].sort((a, b) => (a.seqFrom < b.seqFrom ? -1 : a.seqFrom > b.seqFrom ? 1 : 0));
  let at = 0;
  let hashes: string[] = [];
  const close = (batch: SealedBatch): void => {
    if (hashes.length !== batch.events)
      issues.error(
        'batch_count_mismatch',
        batch.hash,
        `seals ${hashes.length} events, records ${batch.events}`,
      );
    else if (merkleRoot(hashes) !== batch.merkleRoot)
      issues.error(
        'batch_root_mismatch',
        batch.hash,
        'the Merkle root over its events differs from the recorded one',
      );
    hashes = [];
  };
  let checked = 0;
  let after = -1n;
  for (;;) {
    const rows = await readRows<{ seq: bigint; id: string; hash: string }>(
      connection,
      sql`SELECT seq, id, hash, ${raw(recheck.columns)} FROM events
          WHERE run_id = ${runId} AND seq > ${after} ORDER BY seq LIMIT ${chunkRows}`,
    );
    for (const row of rows) {
      while (at < ordered.length && ordered[at]!.seqTo <= row.seq) close(ordered[at++]!);
      const batch = ordered[at];
      if (recheck.rehash(row as never) !== row.hash)
        issues.error('event_hash_mismatch', row.id, 'its stored facts do not hash to its stored hash');
      if (batch !== undefined && row.seq >= batch.seqFrom) hashes.push(row.hash);
      else issues.error('unsealed_event', row.id, `event at seq ${row.seq} is sealed by no batch`);
    }
    checked += rows.length;
    if (rows.length < chunkRows) break;
    after = rows[rows.length - 1]!.seq;
  }
  while (at < ordered.length) close(ordered[at++]!);
  return checked;
}
