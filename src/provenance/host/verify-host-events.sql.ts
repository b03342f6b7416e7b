/**
 * verify-host's check of host events against their digests, over a seq range and in chunks of about
 * `chunkEvents` events, so memory stays bounded by a chunk whatever the store's size: each event's
 * hash recomputed (in DuckDB; a disagreeing row rehashed again exactly), each digest's count and
 * Merkle root over the host events in its range, every host event inside some digest, and a digest
 * lacking events accepted only when bindings claimed exactly that many of its batch into runs.
 * A digest is `final` when none of its events still waits in the spool: no binding can change it
 * any more, so what was found of it holds until retention removes it.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { list, raw, readRows, sql, unnested } from '../../store/sql.js';
import { merkleRoots } from '../batch-hash.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import type { HostDigest } from './host-digests.sql.js';

/** Host events read per chunk (a chunk holds whole digests, so one larger digest makes a larger chunk). */
const chunkEvents = 65_536;

/** What the check found, by where: a digest's seq_from, or the seq of an event no digest seals. */
export interface HostEventFindings {
  /** What was found of a digest (often nothing). */
  digest(seqFrom: bigint, issues: VerifyIssues): void;
  /** An event no digest seals. */
  unsealed(seq: bigint, id: string): void;
}

/**
 * Checks the host events with seq in [from, to) against `digests` (the host digests starting in it,
 * in seq order). Returns the frontier: the lowest seq_from of a digest that is not final, or seq of
 * an event no digest seals that still waits in the spool (`to` when there is none).
 */
export async function checkHostEvents(
  connection: DuckDBConnection,
  digests: readonly HostDigest[],
  from: bigint,
  to: bigint,
  recheck: EventRecheck,
  findings: HostEventFindings,
): Promise<bigint> {
  let frontier = to;
  for (let first = 0, lo = from; lo < to;) {
    let last = first;
    let events = 0;
    while (last < digests.length && (last === first || events + digests[last]!.events <= chunkEvents))
      events += digests[last++]!.events;
    const hi = last < digests.length ? digests[last]!.seqFrom : to;
    const open = await checkChunk(connection, digests.slice(first, last), lo, hi, recheck, findings);
    if (open !== null && open < frontier) frontier = open;
    first = last;
    lo = hi;
  }
  return frontier;
}

/** One chunk: the host events in [lo, hi) and the digests starting in it. */
async function checkChunk(
  connection: DuckDBConnection,
  digests: readonly HostDigest[],
  lo: bigint,
  hi: bigint,
  recheck: EventRecheck,
  findings: HostEventFindings,
): Promise<bigint | null> {
  const rows = await readRows<{ seq: bigint; id: string; hash: string; pending: boolean; suspect: boolean }>(
    connection,
    sql`SELECT seq, id, hash, spool_state = 1 AS pending,
          'sha256:' || sha256(${raw(recheck.contentSql)}) IS DISTINCT FROM hash AS suspect
        FROM events WHERE run_id IS NULL AND seq >= ${lo} AND seq < ${hi} ORDER BY seq`,
  );
  const suspects = rows.filter((row) => row.suspect).map((row) => row.seq);
  const tampered =
    suspects.length === 0 ? new Set<string>() : await rehashSuspects(connection, suspects, recheck);
  const found = digests.map(() => new VerifyIssues());
  const final = digests.map(() => true);
  const groups = new Uint32Array(rows.length);
  const leaves = Buffer.alloc(rows.length * 32);
  const counts = digests.map(() => 0);
  let sealed = 0;
  let at = -1;
  let open: bigint | null = null;
  for (const row of rows) {
    while (at + 1 < digests.length && digests[at + 1]!.seqFrom <= row.seq) at++;
    const digest = digests[at];
    if (digest === undefined || row.seq >= digest.seqTo) {
      findings.unsealed(row.seq, row.id);
      if (row.pending && (open === null || row.seq < open)) open = row.seq;
      continue;
    }
    if (tampered.has(row.id))
      found[at]!.error('event_hash_mismatch', row.id, 'its stored facts do not hash to its stored hash');
    if (row.pending) final[at] = false;
    counts[at]!++;
    groups[sealed] = at;
    leafOf(row.hash).copy(leaves, sealed * 32);
    sealed++;
  }
  const roots = merkleRoots(leaves.subarray(0, sealed * 32), groups.subarray(0, sealed), digests.length);
  const partial: { at: number; lacking: number }[] = [];
  digests.forEach((digest, i) => {
    const count = counts[i]!;
    if (count > digest.events)
      found[i]!.error(
        'batch_count_mismatch',
        digest.batchId,
        `the host digest seals ${digest.events} events; ${count} are stored in its range`,
      );
    else if (count < digest.events) partial.push({ at: i, lacking: digest.events - count });
    else if ('sha256:' + roots.subarray(i * 32, i * 32 + 32).toString('hex') !== digest.merkleRoot)
      found[i]!.error(
        'batch_root_mismatch',
        digest.batchId,
        "the host events' Merkle root differs from the digest's",
      );
  });
  await checkClaimed(connection, digests, partial, found);
  digests.forEach((digest, i) => {
    findings.digest(digest.seqFrom, found[i]!);
    if (!final[i]! && (open === null || digest.seqFrom < open)) open = digest.seqFrom;
  });
  return open;
}

/** A stored hash as a Merkle leaf: its bytes, or (not sha256:<hex>) the sha256 of its text, as verify-events.sql.ts. */
function leafOf(hash: string): Buffer {
  if (/^sha256:[0-9a-f]{64}$/.test(hash)) return Buffer.from(hash.slice(7), 'hex');
  return Buffer.from(sha256Hex(hash), 'hex');
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Ids of the suspect rows that really do not hash to their stored hash, rehashed exactly. */
async function rehashSuspects(
  connection: DuckDBConnection,
  seqs: readonly bigint[],
  recheck: EventRecheck,
): Promise<Set<string>> {
  const rows = await readRows<{ id: string; hash: string }>(
    connection,
    sql`SELECT id, hash, ${raw(recheck.columns)} FROM events
        WHERE run_id IS NULL AND seq IN (SELECT unnest(${list([...seqs], BIGINT)}))`,
  );
  return new Set(rows.filter((row) => recheck.rehash(row as never) !== row.hash).map((row) => row.id));
}

/**
 * A host digest lacking events is honest only when bindings claimed exactly that many of its batch
 * into runs since it was committed. A claimed event gets a new seq past every seq committed before
 * (past its digest's range, where the batch's events that joined runs at commit stay), so those are
 * counted from the digest's seq_to on, and zone maps skip the older events.
 */
async function checkClaimed(
  connection: DuckDBConnection,
  digests: readonly HostDigest[],
  partial: readonly { at: number; lacking: number }[],
  found: readonly VerifyIssues[],
): Promise<void> {
  if (partial.length === 0) return;
  const lacking = partial.map(({ at }) => digests[at]!);
  const since = lacking.reduce((min, digest) => (digest.seqTo < min ? digest.seqTo : min), lacking[0]!.seqTo);
  const rows = await readRows<{ b: string; n: bigint }>(
    connection,
    sql`SELECT p.b, count(*) AS n FROM (
          SELECT regexp_extract(id, '^(.*)\\.[0-9]+$', 1) AS b, seq FROM events
          WHERE run_id IS NOT NULL AND seq >= ${since}) e
        JOIN (SELECT ${unnested(
          [lacking.map((digest) => digest.batchId), VARCHAR],
          [lacking.map((digest) => digest.seqTo), BIGINT],
        )}) p(b, t) ON e.b = p.b AND e.seq >= p.t GROUP BY p.b`,
  );
  const claimed = new Map(rows.map((row) => [row.b, Number(row.n)]));
  for (const { at, lacking: count } of partial) {
    const digest = digests[at]!;
    const moved = claimed.get(digest.batchId) ?? 0;
    if (moved !== count)
      found[at]!.error(
        'host_events_missing',
        digest.batchId,
        `the host digest seals ${digest.events} events; ${count} are gone from it and ${moved} of its batch joined runs since`,
      );
  }
}
