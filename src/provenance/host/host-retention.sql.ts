/**
 * Host event retention in the store actor: which host digests (event_batches rows with no run) a
 * round removes, and their removal, whole digests only, set-wise. A digest is removable only when
 * none of its events still waits in the spool (a pending event may yet join a run); it is removed
 * by age when its newest event was captured before the cutoff, and by size, oldest first, while the
 * host events' estimated bytes exceed the bound. Before removal the Merkle root over the events is
 * recomputed: a digest whose events no longer hash to its root is evidence of tampering and stays,
 * for verify to report.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT } from '../../store/duckdb-api.js';
import { execute, list, raw, readRows, sql, unnested } from '../../store/sql.js';
import { merkleRoot } from '../merkle.js';
import type { RetainedDigest } from './host-chain.sql.js';
import type { HostLimits } from './host-limits.js';

/**
 * Most events one round removes: a round holds the write queue (ingest commits wait), 0.9-1.1 s for
 * 200,000 (1.5-1.7 s for ~500,000, measured over 1,000,000 host events); the next round, 1 s later, goes on.
 */
export const maxRemovedPerRound = 200_000;

// must match `rowBytes` in src/telemetry/spool.sql.ts: the spool bounds host events' bytes the same way
const rowBytes = raw(
  'strlen(attrs) + strlen(time) + coalesce(strlen(comm), 0) + ' +
    'coalesce(strlen(cgroup_id), 0) + coalesce(strlen(container_id), 0) + 96',
);

/** Spool states of rows no binding will claim any more (src/model/codes.ts: unclaimed, overflowed). */
const finalStates = raw('2, 3');

/** A host digest with what its events are now. */
interface DigestState {
  batch_id: string;
  seq_from: bigint;
  seq_to: bigint;
  events: bigint;
  merkle_root: string;
  /** host events in its range now (fewer than `events` once a binding claimed some) */
  n: bigint;
  final: boolean;
  newest: bigint | null;
  oldest: bigint | null;
  bytes: bigint;
}

/** What a round chose and removed. */
export interface Removal {
  digests: RetainedDigest[];
  events: number;
  bytes: number;
  oldestNs: bigint | null;
  newestNs: bigint | null;
  /** Digests chosen but kept: their events no longer hash to their root. */
  refused: string[];
  /** True when the round stopped at maxRemovedPerRound with more to remove. */
  more: boolean;
}

/** Chooses and removes the digests due under `limits`; call inside a write transaction. */
export async function removeDueHostEvents(
  connection: StoreConnection,
  limits: HostLimits,
  nowNs: bigint,
): Promise<Removal> {
  const states = await readDigestStates(connection);
  const chosen = chooseDue(states, limits, nowNs);
  const removal: Removal = {
    digests: [],
    events: 0,
    bytes: 0,
    oldestNs: null,
    newestNs: null,
    refused: [],
    more: chosen.more,
  };
  if (chosen.digests.length === 0) return removal;
  const hashes = await readHashes(connection, chosen.digests);
  const removed: DigestState[] = [];
  for (const state of chosen.digests) {
    const leaves = hashes.get(state.seq_from) ?? [];
    const root = merkleRoot(leaves);
    // whole (no event claimed into a run since): its events must still be exactly what it sealed
    if (
      leaves.length > Number(state.events) ||
      (leaves.length === Number(state.events) && root !== state.merkle_root)
    ) {
      removal.refused.push(state.batch_id);
      continue;
    }
    removed.push(state);
    removal.digests.push({
      batch_id: state.batch_id,
      seq_from: state.seq_from.toString(),
      seq_to: state.seq_to.toString(),
      events: Number(state.events),
      merkle_root: state.merkle_root,
      removed: leaves.length,
      removed_root: root,
    });
    removal.events += leaves.length;
    removal.bytes += Number(state.bytes);
    if (state.oldest !== null && (removal.oldestNs === null || state.oldest < removal.oldestNs))
      removal.oldestNs = state.oldest;
    if (state.newest !== null && (removal.newestNs === null || state.newest > removal.newestNs))
      removal.newestNs = state.newest;
  }
  if (removed.length === 0) return removal;
  const ranges = unnested(
    [removed.map((state) => state.seq_from), BIGINT],
    [removed.map((state) => state.seq_to), BIGINT],
  );
  await execute(
    connection,
    sql`DELETE FROM events WHERE run_id IS NULL AND seq IN (
          SELECT e.seq FROM (SELECT seq FROM events WHERE run_id IS NULL) e
          ASOF JOIN (SELECT ${ranges}) r(f, t) ON e.seq >= r.f WHERE e.seq < r.t)`,
  );
  await execute(
    connection,
    sql`DELETE FROM event_batches WHERE run_id IS NULL
          AND seq_from IN (SELECT unnest(${list(
            removed.map((state) => state.seq_from),
            BIGINT,
          )}))`,
  );
  return removal;
}

/**
 * Every host digest with its events' count, state, capture span and bytes: one pass over the host
 * events, each matched to the digest whose range holds it by an ASOF join (digests never overlap).
 */
async function readDigestStates(connection: StoreConnection): Promise<DigestState[]> {
  return readRows<DigestState>(
    connection,
    sql`WITH d AS (SELECT batch_id, seq_from, seq_to, events, merkle_root FROM event_batches
                   WHERE run_id IS NULL AND events > 0),
        e AS (SELECT d.seq_from AS at, count(*) AS n, bool_and(ev.spool_state IN (${finalStates})) AS final,
                     max(ev.time_ns) AS newest, min(ev.time_ns) AS oldest, sum(ev.bytes)::BIGINT AS bytes
              FROM (SELECT seq, spool_state, time_ns, ${rowBytes} AS bytes FROM events WHERE run_id IS NULL) ev
              ASOF JOIN d ON ev.seq >= d.seq_from WHERE ev.seq < d.seq_to GROUP BY d.seq_from)
        SELECT d.batch_id, d.seq_from, d.seq_to, d.events, d.merkle_root, coalesce(e.n, 0)::BIGINT AS n,
               coalesce(e.final, true) AS final, e.newest, e.oldest, coalesce(e.bytes, 0)::BIGINT AS bytes
        FROM d LEFT JOIN e ON e.at = d.seq_from ORDER BY d.seq_from`,
  );
}

/** The removable digests due by age, then by size (oldest first), up to the round's bound. */
function chooseDue(
  states: readonly DigestState[],
  limits: HostLimits,
  nowNs: bigint,
): { digests: DigestState[]; more: boolean } {
  const cutoffNs = limits.ageMs === null ? null : nowNs - BigInt(limits.ageMs) * 1_000_000n;
  let bytes = states.reduce((sum, state) => sum + state.bytes, 0n);
  const maxBytes = limits.maxBytes === null ? null : BigInt(limits.maxBytes);
  const digests: DigestState[] = [];
  let events = 0;
  for (const state of states) {
    if (!state.final) continue; // a pending event may still join a run
    const old = cutoffNs !== null && (state.newest === null || state.newest < cutoffNs);
    const over = maxBytes !== null && bytes > maxBytes;
    if (!old && !over) continue;
    if (events + Number(state.n) > maxRemovedPerRound && digests.length > 0) return { digests, more: true };
    digests.push(state);
    events += Number(state.n);
    bytes -= state.bytes;
  }
  return { digests, more: false };
}

/** The hashes of the host events in each digest's range, in seq order, by the digest's seq_from. */
async function readHashes(
  connection: StoreConnection,
  digests: readonly DigestState[],
): Promise<Map<bigint, string[]>> {
  const ranges = unnested(
    [digests.map((state) => state.seq_from), BIGINT],
    [digests.map((state) => state.seq_to), BIGINT],
  );
  const rows = await readRows<{ at: bigint; hash: string }>(
    connection,
    sql`SELECT r.f AS at, e.hash FROM (SELECT seq, hash FROM events WHERE run_id IS NULL) e
        ASOF JOIN (SELECT ${ranges}) r(f, t) ON e.seq >= r.f WHERE e.seq < r.t ORDER BY e.seq`,
  );
  const hashes = new Map<bigint, string[]>();
  for (const row of rows) {
    const leaves = hashes.get(row.at);
    if (leaves === undefined) hashes.set(row.at, [row.hash]);
    else leaves.push(row.hash);
  }
  return hashes;
}
