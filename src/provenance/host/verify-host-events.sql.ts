/**
 * verify-host's check of host events against their digests, over a seq range and in chunks of about
 * `chunkEvents` events, so memory stays bounded by a chunk whatever the store's size: each event's
 * hash recomputed (in DuckDB; a disagreeing row rehashed again exactly), each digest's count and
 * Merkle root over the host events in its range, every host event inside some digest, and a digest
 * lacking events accepted only when bindings claimed exactly that many of its batch into runs.
 * A digest is `final` when none of its events still waits in the spool: no binding can change it
 * any more, so what was found of it holds until retention removes it.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, INTEGER } from '../../store/duckdb-api.js';
import { list, raw, readRows, sql, unnested, type Statement } from '../../store/sql.js';
import { merkleRoots } from '../batch-hash.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import type { HostDigest } from './host-digests.sql.js';
import { checkClaimed } from './verify-host-claimed.sql.js';

/**
 * Host events checked per chunk (a chunk holds whole digests, so one larger digest makes a larger
 * one): about one of DuckDB's row groups (122,880 rows), since a chunk decompresses the columns of
 * every row group it touches (chunks of 65,536 cost a fifth more CPU). JavaScript holds one chunk's
 * Merkle leaves at a time, 32 bytes an event.
 */
const chunkEvents = 122_880;

/** What the check found, by where: a digest's seq_from, or the seq of an event no digest seals. */
export interface HostEventFindings {
  /**
   * What was found of a digest (often nothing), of how many events it holds now, and whether it is
   * final (none of them still waits in the spool).
   */
  digest(seqFrom: bigint, issues: VerifyIssues, count: number, final: boolean): void;
  /** An event no digest seals. */
  unsealed(seq: bigint, id: string): void;
}

/**
 * Checks the host events with seq in [from, to) against `digests` (the host digests starting in it,
 * in seq order). Returns the frontier: the lowest seq_from of a digest that is not final, or seq of
 * an event no digest seals that still waits in the spool (`to` when there is none).
 */
export async function checkHostEvents(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  from: bigint,
  to: bigint,
  recheck: EventRecheck,
  findings: HostEventFindings,
  /** Awaited after each chunk but the last, with how long it took: a background run yields here. */
  pace: (chunkMs: number) => Promise<void> = () => Promise.resolve(),
): Promise<bigint> {
  let frontier = to;
  for (let first = 0, lo = from; lo < to;) {
    let last = first;
    let events = 0;
    while (last < digests.length && (last === first || events + digests[last]!.events <= chunkEvents))
      events += digests[last++]!.events;
    const hi = last < digests.length ? digests[last]!.seqFrom : to;
    const started = performance.now();
    const open = await checkChunk(connection, digests.slice(first, last), lo, hi, recheck, findings);
    if (open !== null && open < frontier) frontier = open;
    first = last;
    lo = hi;
    if (lo < to) await pace(performance.now() - started);
  }
  return frontier;
}

/** What DuckDB answers of one chunk: one row per digest index `g` (null: events no digest seals). */
interface ChunkGroup {
  g: number | null;
  n: bigint;
  /** The lowest seq of an event still waiting in the spool, or null. */
  pending_from: bigint | null;
  /** The events' Merkle leaves in seq order, as hex (null for the unsealed group). */
  leaves: string | null;
  /** Seqs of events whose stored hash DuckDB's rehash disagrees with. */
  suspects: bigint[];
}

/**
 * One chunk: the host events in [lo, hi) and the digests starting in it, aggregated in DuckDB.
 * Each event goes to the digest that starts last at or before it (an as-of join) when it falls
 * inside that digest's range; per digest come back its count, its Merkle leaves in seq order as one
 * hex string, whether an event still waits in the spool, and the events DuckDB's rehash disagrees
 * with; events no digest seals are read apart (there are none unless a row was added behind
 * provd's back). Nothing else of the rows reaches JavaScript.
 */
async function checkChunk(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  lo: bigint,
  hi: bigint,
  recheck: EventRecheck,
  findings: HostEventFindings,
): Promise<bigint | null> {
  let groups = await readChunk(connection, digests, lo, hi, recheck, false);
  let leaves = leavesOf(groups, digests.length);
  // a hash of the right shape but not lower-case hex makes a leaf the quick form gets wrong
  if (leaves === null) {
    groups = await readChunk(connection, digests, lo, hi, recheck, true);
    leaves = leavesOf(groups, digests.length)!;
  }
  // an event no digest seals is reported as that; only a sealed one's hash is looked at again
  const suspects = groups.flatMap((group) => (group.g === null ? [] : group.suspects));
  const tampered =
    suspects.length === 0 ? new Map<bigint, string>() : await rehashSuspects(connection, suspects, recheck);
  const found = digests.map(() => new VerifyIssues());
  const counts = digests.map(() => 0);
  const final = digests.map(() => true);
  let open: bigint | null = null;
  const lower = (seq: bigint | null): void => {
    if (seq !== null && (open === null || seq < open)) open = seq;
  };
  for (const group of groups) {
    if (group.g === null) {
      for (const { seq, id } of await readUnsealed(connection, digests, lo, hi)) findings.unsealed(seq, id);
      lower(group.pending_from); // a pending event no digest seals yet: its digest may be on its way
      continue;
    }
    for (const seq of group.suspects) {
      const id = tampered.get(seq);
      if (id !== undefined)
        found[group.g]!.error('event_hash_mismatch', id, 'its stored facts do not hash to its stored hash');
    }
    counts[group.g] = Number(group.n);
    // a digest with an event still in the spool is not final: a binding may yet claim from it
    if (group.pending_from !== null) {
      final[group.g] = false;
      lower(digests[group.g]!.seqFrom);
    }
  }
  const roots = merkleRoots(leaves.bytes, leaves.groups, digests.length);
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
  digests.forEach((digest, i) => findings.digest(digest.seqFrom, found[i]!, counts[i]!, final[i]!));
  return open;
}

/**
 * The chunk's events aggregated per digest. A stored hash is a Merkle leaf as merkle.ts makes one:
 * its hex when it is sha256:<lower-case hex>, else the sha256 of its text. The quick form checks
 * only the shape (a regular expression per row cost as much as the rest of the leaves); `exact`
 * checks the hex too, for a chunk where the quick leaves are not all hex.
 */
async function readChunk(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  lo: bigint,
  hi: bigint,
  recheck: EventRecheck,
  exact: boolean,
): Promise<ChunkGroup[]> {
  const hex = exact
    ? sql`regexp_full_match(e.hash, 'sha256:[0-9a-f]{64}')`
    : sql`length(e.hash) = 71 AND starts_with(e.hash, 'sha256:')`;
  return readRows<ChunkGroup>(
    connection,
    sql`SELECT g, count(*) AS n, min(seq) FILTER (WHERE pending) AS pending_from,
          string_agg(leaf, '' ORDER BY seq) AS leaves,
          coalesce(list(seq) FILTER (WHERE suspect), []) AS suspects
        FROM (SELECT e.seq, e.spool_state = 1 AS pending,
                CASE WHEN e.seq < d.t THEN d.i END AS g,
                CASE WHEN e.seq < d.t THEN
                  CASE WHEN ${hex} THEN substr(e.hash, 8) ELSE sha256(e.hash) END END AS leaf,
                'sha256:' || sha256(${raw(recheck.contentSql)}) IS DISTINCT FROM e.hash AS suspect
              FROM events e ASOF LEFT JOIN ${rangesOf(digests)} ON e.seq >= d.f
              WHERE e.run_id IS NULL AND e.seq >= ${lo} AND e.seq < ${hi})
        GROUP BY g`,
  );
}

/** The chunk's events no digest seals (a few, unless rows were added behind provd's back), in seq order. */
async function readUnsealed(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  lo: bigint,
  hi: bigint,
): Promise<{ seq: bigint; id: string }[]> {
  return readRows<{ seq: bigint; id: string }>(
    connection,
    sql`SELECT e.seq, e.id FROM events e ASOF LEFT JOIN ${rangesOf(digests)} ON e.seq >= d.f
        WHERE e.run_id IS NULL AND e.seq >= ${lo} AND e.seq < ${hi} AND (d.t IS NULL OR e.seq >= d.t)
        ORDER BY e.seq`,
  );
}

/** The digests as an inline table `d(i, f, t)`: index, seq_from, seq_to. */
export function rangesOf(digests: readonly HostDigest[]): Statement {
  if (digests.length === 0)
    return sql`(SELECT NULL::INTEGER AS i, NULL::BIGINT AS f, NULL::BIGINT AS t WHERE false) d`;
  return sql`(SELECT ${unnested(
    [digests.map((_digest, i) => i), INTEGER],
    [digests.map((digest) => digest.seqFrom), BIGINT],
    [digests.map((digest) => digest.seqTo), BIGINT],
  )}) d(i, f, t)`;
}

/**
 * The digests' leaves as bytes, each with its digest's index (for merkleRoots); null when a leaf
 * is not lower-case hex (only a hash edited into that shape, read quickly, makes one).
 */
function leavesOf(
  groups: readonly ChunkGroup[],
  digests: number,
): { bytes: Buffer; groups: Uint32Array } | null {
  const hexes: string[] = Array.from({ length: digests }, () => '');
  let total = 0;
  for (const group of groups)
    if (group.g !== null && group.leaves !== null) {
      hexes[group.g] = group.leaves;
      total += group.leaves.length / 2;
    }
  const bytes = Buffer.alloc(Math.ceil(total));
  const indices = new Uint32Array(Math.floor(total / 32));
  let at = 0;
  for (let i = 0; i < digests; i++) {
    const hex = hexes[i]!;
    // hex decoding stops at the first character that is not hex, and takes upper case as well
    if (bytes.write(hex, at, 'hex') * 2 !== hex.length || hex !== hex.toLowerCase()) return null;
    indices.fill(i, at / 32, (at + hex.length / 2) / 32);
    at += hex.length / 2;
  }
  return { bytes, groups: indices };
}

/** The suspect rows that really do not hash to their stored hash, rehashed exactly: id by seq. */
async function rehashSuspects(
  connection: StoreConnection,
  seqs: readonly bigint[],
  recheck: EventRecheck,
): Promise<Map<bigint, string>> {
  const rows = await readRows<{ seq: bigint; id: string; hash: string }>(
    connection,
    sql`SELECT seq, id, hash, ${raw(recheck.columns)} FROM events
        WHERE run_id IS NULL AND seq IN (SELECT unnest(${list([...seqs], BIGINT)}))`,
  );
  return new Map(
    rows.filter((row) => recheck.rehash(row as never) !== row.hash).map((row) => [row.seq, row.id]),
  );
}
