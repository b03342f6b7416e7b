/**
 * Verification of a run's events against its sealed batches, in DuckDB on its own threads: every
 * event's hash recomputed from its stored facts, every batch's count and Merkle root recomputed
 * over the events it seals (the run's events with seq in [seq_from, seq_to), in seq order), and
 * every event sealed by some batch. Only what disagrees comes back to JavaScript, where a row is
 * rehashed once more exactly as ingest hashed it before it counts as tampered.
 */
import { randomBytes } from 'node:crypto';
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, INTEGER } from '../store/duckdb-api.js';
import { execute, raw, readRows, sql, unnested, type RawSql, type Statement } from '../store/sql.js';
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
  /** The policy's decisions it seals and their root; null in batches sealed before format 10. */
  judged: number | null;
  judgmentRoot: string | null;
}

/** Issues listed per kind; the rest are counted (VerifyIssues lists at most 100 of a kind). */
const listedRows = 100;

/** Checks the run's events against its batches. */
export async function verifyEvents(
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  recheck: EventRecheck,
  issues: VerifyIssues,
  sealedAtNs: bigint,
): Promise<void> {
  await checkEventHashes(connection, runId, recheck, issues);
  const leaves = raw(`verify_leaves_${randomBytes(6).toString('hex')}`);
  try {
    const sealed = await readLeaves(connection, runId, batches, leaves);
    await checkSealed(connection, runId, batches, sealed, issues, sealedAtNs);
    await checkBatches(connection, batches, sealed.counts, leaves, issues);
  } finally {
    await execute(connection, sql`DROP TABLE IF EXISTS ${leaves}`);
  }
}

/** Rows whose stored hash DuckDB's rehash disagrees with, rehashed again exactly. */
async function checkEventHashes(
  connection: StoreConnection,
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

/** What the leaves table holds: events per batch index, and whether no event can be in two batches. */
interface Sealed {
  counts: Map<number, number>;
  disjoint: boolean;
}

/**
 * The Merkle leaves of the run's sealed events into a temp table `(b, seq, node)`: the index of the
 * batch whose range holds the event, and its stored hash as bytes. A stored hash that is not
 * sha256:<hex> still makes a leaf (sha256 of its text), so its batch's root cannot match.
 */
async function readLeaves(
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  leaves: RawSql,
): Promise<Sealed> {
  const ranges = batches.filter((batch) => batch.seqTo > batch.seqFrom);
  const sorted = ranges
    .map((batch) => [batch.seqFrom, batch.seqTo] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const disjoint = sorted.every(([from], i) => i === 0 || from >= sorted[i - 1]![1]);
  // disjoint ranges (as sealing makes them): an as-of join finds each event's one batch cheaply;
  // overlapping ones (only a forger's) take the range join, which puts an event in every batch it falls in
  const join = disjoint
    ? sql`ASOF JOIN ${rangesOf(batches, ranges)} ON e.seq >= r.f`
    : sql`JOIN ${rangesOf(batches, ranges)} ON e.seq >= r.f`;
  await execute(
    connection,
    sql`CREATE TEMP TABLE ${leaves} AS SELECT r.b, e.seq, coalesce(
          CASE WHEN length(e.hash) = 71 AND starts_with(e.hash, 'sha256:') THEN try(unhex(substr(e.hash, 8))) END,
          unhex(sha256(e.hash))) AS node
        FROM events e ${join} WHERE e.run_id = ${runId} AND e.seq < r.t`,
  );
  const counts = await readRows<{ b: number; n: bigint }>(
    connection,
    sql`SELECT b, count(*) AS n FROM ${leaves} GROUP BY b`,
  );
  return { counts: new Map(counts.map((row) => [row.b, Number(row.n)])), disjoint };
}

/**
 * Events of the run no batch seals. With disjoint ranges that is the run's count less the sealed
 * count, and the events are looked for only when it is not zero.
 */
async function checkSealed(
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  sealed: Sealed,
  issues: VerifyIssues,
  sealedAtNs: bigint,
): Promise<void> {
  if (sealed.disjoint) {
    const [total] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM events WHERE run_id = ${runId}`,
    );
    let inBatches = 0;
    for (const n of sealed.counts.values()) inBatches += n;
    if (Number(total!.n) === inBatches) return;
  }
  const unsealed = raw(`verify_unsealed_${randomBytes(6).toString('hex')}`);
  await execute(
    connection,
    sql`CREATE TEMP TABLE ${unsealed} AS SELECT seq, id FROM events e
        WHERE run_id = ${runId} AND NOT EXISTS (
          SELECT 1 FROM ${rangesOf(batches, batches)} WHERE e.seq >= r.f AND e.seq < r.t)`,
  );
  try {
    // read after the events: a digest row commits with its events, so an event a commit added
    // after the seal verify began with has its digest row here, committed since then and not sealed
    // yet: pending, not forged (a digest left unsealed from before, or dated ahead, is no excuse)
    const readNs = BigInt(Date.now()) * 1_000_000n;
    const [found] = await readRows<{ n: bigint; pending: bigint; ids: string[] | null }>(
      connection,
      sql`SELECT count(*) FILTER (WHERE NOT pending) AS n, count(*) FILTER (WHERE pending) AS pending,
            (list(id ORDER BY seq) FILTER (WHERE NOT pending))[1:${listedRows}] AS ids
          FROM (SELECT u.id, u.seq, EXISTS (SELECT 1 FROM event_batches b
                  WHERE b.run_id = ${runId} AND b.object_hash IS NULL AND u.seq >= b.seq_from AND u.seq < b.seq_to
                    AND b.committed_ns BETWEEN ${sealedAtNs} AND ${readNs})
                AS pending FROM ${unsealed} u)`,
    );
    issues.errorMany(
      'unsealed_event',
      Number(found!.n),
      (found!.ids ?? []).map((id) => ({ id, message: 'sealed by no batch' })),
    );
    if (found!.pending > 0n)
      issues.warning(
        'event_pending_seal',
        runId,
        `${found!.pending} events were committed after verify began and are not sealed yet: the next checkpoint seals them`,
      );
  } finally {
    await execute(connection, sql`DROP TABLE IF EXISTS ${unsealed}`);
  }
}

/** The batches in `ranges` as an inline table `r(b, f, t)`: index in `batches`, seq_from, seq_to. */
function rangesOf(batches: readonly SealedBatch[], ranges: readonly SealedBatch[]): Statement {
  if (ranges.length === 0)
    return sql`(SELECT NULL::INTEGER AS b, 0::BIGINT AS f, 0::BIGINT AS t WHERE false) r`;
  return sql`(SELECT ${unnested(
    [ranges.map((batch) => batches.indexOf(batch)), INTEGER],
    [ranges.map((batch) => batch.seqFrom), BIGINT],
    [ranges.map((batch) => batch.seqTo), BIGINT],
  )}) r(b, f, t)`;
}

/** Tree levels one pass folds: each pass hashes every block of 2^k neighbours up to its subtree's root. */
const levelsPerPass = 4;
const blockWidth = 2 ** levelsPerPass;

/** sha256(0x01 || left || right), or left carried up when it has no right neighbour (merkle.ts). */
const pairSql = (left: string, right: string): string =>
  `CASE WHEN ${right} IS NULL THEN ${left} ELSE unhex(sha256('\\x01'::BLOB || ${left} || ${right})) END`;

/**
 * One pass over `source(b, <order>, node)` into `target(b, pos, node)`: a window lines up each node
 * with the next blockWidth - 1 of its batch (in `order`), and levelsPerPass nested projections hash
 * the block up to its subtree's root, a missing neighbour (past the end) carried as at every level.
 */
function foldPass(source: RawSql, order: string, target: RawSql): Statement {
  const names = (prefix: string, n: number): string[] =>
    Array.from({ length: n }, (_v, i) => `${prefix}${i}`);
  const leads = names('n', blockWidth)
    .slice(1)
    .map((name, i) => `lead(node, ${i + 1}) OVER w AS ${name}`);
  let query = `SELECT * FROM (SELECT b, (row_number() OVER w - 1) // ${blockWidth} AS pos,
      (row_number() OVER w - 1) % ${blockWidth} AS slot, node AS n0, ${leads.join(', ')}
    FROM ${source.text} WINDOW w AS (PARTITION BY b ORDER BY ${order})) WHERE slot = 0`;
  for (let width = blockWidth; width > 1; width /= 2) {
    const pairs = names('n', width / 2).map(
      (name, i) => `${pairSql(`n${2 * i}`, `n${2 * i + 1}`)} AS ${name}`,
    );
    query = `SELECT b, pos, ${pairs.join(', ')} FROM (${query})`;
  }
  return sql`CREATE TEMP TABLE ${target} AS SELECT b, pos, n0 AS node FROM (${raw(query)})`;
}

/**
 * Each batch's count and Merkle root over its events, in SQL: the leaves in seq order, a pair
 * hashed as sha256(0x01 || left || right) and an odd node carried up at every level (merkle.ts).
 * The levels are folded levelsPerPass at a time, so a batch of 20,000 events takes four passes.
 */
async function checkBatches(
  connection: StoreConnection,
  batches: readonly SealedBatch[],
  counts: ReadonlyMap<number, number>,
  leaves: RawSql,
  issues: VerifyIssues,
): Promise<void> {
  const table = raw(`${leaves.text}_level`);
  const next = raw(`${leaves.text}_next`);
  try {
    await execute(connection, foldPass(leaves, 'seq', table));
    const widest = [...counts.values()].reduce((max, n) => Math.max(max, n), 0);
    for (let width = Math.ceil(widest / blockWidth); width > 1; width = Math.ceil(width / blockWidth)) {
      await execute(connection, foldPass(table, 'pos', next));
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
