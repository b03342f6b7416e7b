/** Rows of event_batches: one Merkle root over the events a commit or a settlement added to a run. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { execute, sql, unnested } from '../store/sql.js';

/** One digest row; `runId` null for a batch's spooled events. */
export interface DigestRow {
  batchId: string;
  runId: string | null;
  events: number;
  merkleRoot: string;
}

/** Inserts digest rows, stamped now. */
export async function insertDigests(connection: DuckDBConnection, rows: readonly DigestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await execute(
    connection,
    sql`INSERT INTO event_batches SELECT ${unnested(
      [rows.map((row) => row.batchId), VARCHAR],
      [rows.map((row) => row.runId), VARCHAR],
      [rows.map((row) => BigInt(row.events)), BIGINT],
      [rows.map((row) => row.merkleRoot), VARCHAR],
    )}, ${BigInt(Date.now()) * 1_000_000n}`,
  );
}
