/**
 * verify-host's check of the host events from the frontier on (the events below it were checked in
 * digests that are final: nothing the daemon does changes them any more), keeping what it found of
 * each digest it checked, so the next call counts a digest's events rather than hashing them again.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql } from '../../store/sql.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import { readHostDigests, type HostDigest } from './host-digests.sql.js';
import { checkHostEvents, rangesOf } from './verify-host-events.sql.js';

/** A digest at or past the frontier: checked in full once, then only counted while its count holds. */
export interface OpenDigest {
  count: number;
  final: boolean;
  issues: VerifyIssues;
}

/** What verify-host keeps of the events (verify-host.sql.ts: HostVerified). */
export interface FrontierState {
  /** Every host event below it was checked, in a digest whose events were all final. */
  frontier: bigint;
  /** Issues of final digests below the frontier, by seq_from; events no digest seals, below it. */
  readonly digestIssues: Map<bigint, VerifyIssues>;
  readonly unsealed: VerifyIssues;
  /** The digests from the frontier on, by seq_from, each checked in full once; and where that ends. */
  open: Map<bigint, OpenDigest>;
  checkedTo: bigint;
}

/**
 * The host events from the frontier to `end`. A digest checked in full by an earlier call is only
 * counted again (no hashing): while it holds as many events as then, what was found of it holds
 * (of a digest the daemon wrote, only a binding claiming some of its events changes it), else it
 * is checked in full again; events past what was checked are checked in full. An event no digest
 * seals in the counted range has it all checked again. A digest below the new frontier is final:
 * what was found of it is kept for good. Returns what was found of events no digest seals past the
 * frontier (found again by the next call).
 */
export async function checkFromFrontier(
  connection: StoreConnection,
  kept: FrontierState,
  end: bigint,
  recheck: EventRecheck,
  pace?: (chunkMs: number) => Promise<void>,
): Promise<VerifyIssues> {
  const digests = await readHostDigests(connection, kept.frontier);
  const open = new Map<bigint, OpenDigest>();
  const again: HostDigest[] = [];
  let from = kept.checkedTo;
  if (kept.frontier < kept.checkedTo) {
    const counted = digests.filter((digest) => digest.seqFrom < kept.checkedTo);
    const now = await countHostEvents(connection, counted, kept.frontier, kept.checkedTo);
    if (now.unsealed > 0) from = kept.frontier;
    else
      counted.forEach((digest, i) => {
        const was = kept.open.get(digest.seqFrom);
        const { count, final } = now.digests[i]!;
        if (was !== undefined && was.count === count) open.set(digest.seqFrom, { ...was, final });
        else again.push(digest);
      });
  }
  if (from < kept.checkedTo) {
    open.clear();
    again.length = 0;
  }
  const unsealed: [bigint, string][] = [];
  const findings = {
    digest: (seqFrom: bigint, found: VerifyIssues, count: number, final: boolean) =>
      open.set(seqFrom, { count, final, issues: found }),
    unsealed: (seq: bigint, id: string) => unsealed.push([seq, id]),
  };
  let frontier = end;
  const lower = (seq: bigint): void => {
    if (seq < frontier) frontier = seq;
  };
  for (const digest of again)
    lower(await checkHostEvents(connection, [digest], digest.seqFrom, digest.seqTo, recheck, findings, pace));
  const rest = digests.filter((digest) => digest.seqFrom >= from);
  lower(await checkHostEvents(connection, rest, from, end, recheck, findings, pace));
  for (const [seqFrom, digest] of open) if (!digest.final) lower(seqFrom);
  // below the new frontier it is final: kept for good; past it, counted again by the next call
  for (const [seqFrom, digest] of open) {
    if (seqFrom >= frontier) continue;
    if (digest.issues.errors + digest.issues.warnings > 0) kept.digestIssues.set(seqFrom, digest.issues);
    open.delete(seqFrom);
  }
  const fresh = new VerifyIssues();
  for (const [seq, id] of unsealed)
    (seq < frontier ? kept.unsealed : fresh).error('unsealed_event', id, 'a host event no host digest seals');
  kept.frontier = frontier;
  kept.open = open;
  kept.checkedTo = end;
  return fresh;
}

/**
 * How many host events in [lo, hi) each of `digests` holds now and whether one still waits in the
 * spool, and how many no digest seals: one pass with no hashing, for digests checked in full before.
 */
export async function countHostEvents(
  connection: StoreConnection,
  digests: readonly HostDigest[],
  lo: bigint,
  hi: bigint,
): Promise<{ digests: { count: number; final: boolean }[]; unsealed: number }> {
  const rows = await readRows<{ g: number | null; n: bigint; pending: boolean }>(
    connection,
    sql`SELECT g, count(*) AS n, bool_or(pending) AS pending
        FROM (SELECT CASE WHEN e.seq < d.t THEN d.i END AS g, e.spool_state = 1 AS pending
              FROM events e ASOF LEFT JOIN ${rangesOf(digests)} ON e.seq >= d.f
              WHERE e.run_id IS NULL AND e.seq >= ${lo} AND e.seq < ${hi})
        GROUP BY g`,
  );
  const counted = digests.map(() => ({ count: 0, final: true }));
  let unsealed = 0;
  for (const row of rows) {
    if (row.g === null) unsealed = Number(row.n);
    else counted[row.g] = { count: Number(row.n), final: !row.pending };
  }
  return { digests: counted, unsealed };
}
