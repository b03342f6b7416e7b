/**
 * Verification of a run's events against its sealed batches, in DuckDB on its own threads: every
 * event's hash recomputed from its stored facts, every batch's count and Merkle root recomputed
 * over the events it seals (the run's events with seq in [seq_from, seq_to), in seq order), and
 * every event sealed by some batch. Only what disagrees comes back to JavaScript, where a row is
 * rehashed once more exactly as ingest hashed it before it counts as tampered.
 */
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, INTEGER } from '@duckdb/node-api';
import { execute, raw, readRows, sql, unnested, type Statement } from '../store/sql.js';
import { merkleRoot } from './merkle.js';
import type { VerifyIssues } from './verify-issues.js';

/** How an event's hash is recomputed from its row: the telemetry domain supplies it (store worker). */
export interface EventRecheck {
  /** Columns to select (a constant list, never user input). */
  columns: string;
  /** The canonical content as a DuckDB expression over those columns (code constants only). */
  contentSql: string;
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

/** Issues listed per kind; the rest are counted (VerifyIssues lists at most 100 of a kind). */
const listedRows = 100;

/** Checks the run's events against its batches; returns how many events the run holds. */
export async function verifyEvents(
  connection: DuckDBConnection,
  runId: string,
  batches: readonly SealedBatch[],
  recheck: EventRecheck,
  issues: VerifyIssues,
): Promise<number> {
  await checkEventHashes(connection, runId, recheck, issues);
  const ranges = rangesOf(batches);
  const [unsealed] = await readRows<{ n: bigint; ids: string[] }>(
    connection,
    sql`SELECT count(*) AS n, list(id ORDER BY seq)[1:${listedRows}] AS ids FROM events e
        WHERE run_id = ${runId} AND NOT EXISTS (SELECT 1 FROM ${ranges} WHERE e.seq >= r.f AND e.seq < r.t)`,
  );
  issues.errorMany(
    'unsealed_event',
    Number(unsealed!.n),
    (unsealed!.ids ?? []).map((id) => ({ id, message: 'sealed by no batch' })),
  );
  await checkBatches(connection, runId, batches, ranges, issues);
  const [total] = await readRows<{ n: bigint }>(
    connection,
    sql`SELECT count(*) AS n FROM events WHERE run_id = ${runId}`,
  );
  return Number(total!.n);
}

/** Rows whose stored hash DuckDB's rehash disagrees with, rehashed again exactly. */
async function checkEventHashes(
  connection: DuckDBConnection,
  runId: string,
  recheck: EventRecheck,
  issues: VerifyIssues,
): Promise<void> {
  const suspects = await readRows<{ id: string; hash: string }>(
    connection,
    sql`SELECT id, hash, ${raw(recheck.columns)} FROM events
        WHERE run_id = ${runId} AND 'sha256:' || sha256(${raw(recheck.contentSql)}) IS DISTINCT FROM hash ORDER BY seq`,
  );
  for (const row of suspects) {
    if (recheck.rehash(row as never) !== row.hash)
      issues.error('event_hash_mismatch', row.id, 'its stored facts do not hash to its stored hash');
  }
}

/** The batches as an inline table `r(b, f, t)`: index, seq_from, seq_to. */
function rangesOf(batches: readonly SealedBatch[]): Statement {
  if (batches.length === 0)
    return sql`(SELECT NULL::INTEGER AS b, 0::BIGINT AS f, 0::BIGINT AS t WHERE false) r`;
  return sql`(SELECT ${unnested(
    [batches.map((_batch, i) => i), INTEGER],
    [batches.map((batch) => batch.seqFrom), BIGINT],
    [batches.map((batch) => batch.seqTo), BIGINT],
  )}) r(b, f, t)`;
}

/**
 * Each batch's count and Merkle root over its events, in SQL: the leaves in seq order, then one
 * level at a time, a pair hashed as sha256(0x01 || left || right) and an odd node carried up (merkle.ts).
 */
async function checkBatches(
  connection: DuckDBConnection,
  runId: string,
  batches: readonly SealedBatch[],
  ranges: Statement,
  issues: VerifyIssues,
): Promise<void> {
  const table = raw(`verify_merkle_${randomBytes(6).toString('hex')}`);
  const next = raw(`${table.text}_next`);
  try {
    // a stored hash that is not sha256:<hex> still makes a leaf (and so a root that cannot match)
    await execute(
      connection,
      sql`CREATE TEMP TABLE ${table} AS SELECT r.b, row_number() OVER (PARTITION BY r.b ORDER BY e.seq) - 1 AS pos,
            CASE WHEN regexp_full_match(e.hash, 'sha256:[0-9a-f]{64}') THEN unhex(substr(e.hash, 8))
              ELSE unhex(sha256(e.hash)) END AS node
          FROM events e JOIN ${ranges} ON e.seq >= r.f AND e.seq < r.t WHERE e.run_id = ${runId}`,
    );
    const counts = new Map(
      (
        await readRows<{ b: number; n: bigint }>(
          connection,
          sql`SELECT b, count(*) AS n FROM ${table} GROUP BY b`,
        )
      ).map((row) => [row.b, Number(row.n)]),
    );
    for (;;) {
      const [widest] = await readRows<{ m: bigint | null }>(
        connection,
        sql`SELECT max(pos) AS m FROM ${table}`,
      );
      if (widest!.m === null || widest!.m === 0n) break;
      await execute(
        connection,
        sql`CREATE TEMP TABLE ${next} AS SELECT b, pos // 2 AS pos,
              CASE WHEN count(*) = 2 THEN unhex(sha256('\\x01'::BLOB || arg_min(node, pos) || arg_max(node, pos)))
                ELSE any_value(node) END AS node
            FROM ${table} GROUP BY b, pos // 2`,
      );
      await execute(connection, sql`DROP TABLE ${table}`);
      await execute(connection, sql`ALTER TABLE ${next} RENAME TO ${table}`);
    }
    const roots = new Map(
      (
        await readRows<{ b: number; root: string }>(
          connection,
          sql`SELECT b, 'sha256:' || lower(hex(node)) AS root FROM ${table}`,
        )
      ).map((row) => [row.b, row.root]),
    );
    batches.forEach((batch, i) => {
      const count = counts.get(i) ?? 0;
      if (count !== batch.events)
        issues.error('batch_count_mismatch', batch.hash, `seals ${count} events, records ${batch.events}`);
      else if ((roots.get(i) ?? merkleRoot([])) !== batch.merkleRoot)
        issues.error(
          'batch_root_mismatch',
          batch.hash,
          'the Merkle root over its events differs from the recorded one',
        );
    });
  } finally {
    await execute(connection, sql`DROP TABLE IF EXISTS ${table}`);
    await execute(connection, sql`DROP TABLE IF EXISTS ${next}`);
  }
}
