/**
 * One verification of the host events (no run) in one snapshot, answered as a VerifyResult with
 * run_id `host`, from what an earlier one kept (HostVerified): it checks what was added since.
 * Checked, in one snapshot: the host chain's entries added since (and that the entry verified
 * last is still there, else the whole chain again); the anchor file's new lines and the chain's
 * tail against it (verify-host-anchor.ts); the stored digests an entry signed against the
 * latest entry's summary, when either changed; and the host events from the frontier on (every
 * event past the last digest whose events were all final), a digest checked by an earlier call
 * only counted (verify-host-frontier.sql.ts), new ones in bounded chunks (verify-host-events.sql.ts). A removal is accepted only as the chain records it: each retention
 * is a warning (`host_events_retained`), never silent. host-verifier.ts decides when it runs.
 *
 * What a check from kept state gives up: a row below the frontier edited after it was verified is
 * not read again. A check from a fresh HostVerified verifies everything.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql } from '../../store/sql.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import { verifyResultOf, type VerifyResult } from '../verify-result.js';
import { AnchorCheck } from './verify-host-anchor.js';
import { probeHostChain, readHostChain } from './host-chain.sql.js';
import { fingerprintHostDigests, readHostDigests, summarizeDigests } from './host-digests.sql.js';
import type { HostEntryRef } from './host-keeper.js';
import { hostScope } from './host-scope.js';
import { verifyHostChain, type CheckedHostEntry } from './verify-host-chain.js';
import { checkFromFrontier, type FrontierState, type OpenDigest } from './verify-host-frontier.sql.js';

/** Entries read and checked at a time. */
const entriesPerRead = 1000;

/** What the daemon's host rounds tell verify: the newest entry anchored, and those being anchored. */
export interface AnchorWitness {
  /** The index of the newest entry the daemon signed or anchored (Infinity when it runs no rounds). */
  through(): number;
  pending(): readonly HostEntryRef[];
}

/** What a verification keeps for the next one: a fresh one has verified nothing yet. */
export class HostVerified implements FrontierState {
  /** Nothing verified yet: a check from it verifies everything. */
  fresh = true;
  /** Chain entries checked (0..length-1) and the last one's hash. */
  chainLength = 0;
  lastHash: string | null = null;
  /** The newest entry whose bytes checked out: its summary is what the digests must match. */
  head: CheckedHostEntry | null = null;
  readonly chainIssues = new VerifyIssues();
  readonly anchor = new AnchorCheck();
  /** Every host event below it was checked, in a digest whose events were all final. */
  frontier = -1n;
  /** Issues of final digests below the frontier, by seq_from; events no digest seals, below it. */
  readonly digestIssues = new Map<bigint, VerifyIssues>();
  readonly unsealed = new VerifyIssues();
  /** The digests from the frontier on, each checked in full once, by seq_from; every event below `checkedTo` was. */
  open = new Map<bigint, OpenDigest>();
  checkedTo = -1n;
  /** The digests' fingerprint and head hash the summary check ran for, and what it found. */
  summaryFor = '';
  summaryIssues = new VerifyIssues();
}

/** What a check needs besides its snapshot. */
export interface HostCheckParts {
  recheck: EventRecheck;
  anchorFile: string;
  witness: AnchorWitness;
}

/**
 * Checks the host chain, anchor and events in `connection`'s snapshot from what `kept` verified
 * (updated in place, or replaced when the chain was rewritten behind its back); `through`: the
 * witness's newest anchored entry, read before the snapshot began. `pace` is awaited between
 * chunks of events.
 */
export async function checkHost(
  connection: StoreConnection,
  kept: HostVerified,
  through: number,
  parts: HostCheckParts,
  pace?: (chunkMs: number) => Promise<void>,
): Promise<{ result: VerifyResult; verified: HostVerified }> {
  const keys = new Map(
    (
      await readRows<{ key_id: string; public_key_pem: string }>(
        connection,
        sql`SELECT key_id, public_key_pem FROM signing_keys`,
      )
    ).map((key) => [key.key_id, key.public_key_pem]),
  );
  const chain = await checkChain(connection, kept, keys);
  const issues = new VerifyIssues();
  issues.merge(chain.issues);
  await chain.kept.anchor.check(
    connection,
    parts.anchorFile,
    keys,
    chain.length,
    through,
    () => parts.witness.pending(),
    issues,
  );
  await checkEvents(connection, chain.kept, parts.recheck, issues, pace);
  chain.kept.fresh = false;
  return { result: verifyResultOf(hostScope, issues), verified: chain.kept };
}

/** The entries added since the last call; the whole chain when the one checked last is gone or changed. */
async function checkChain(
  connection: StoreConnection,
  kept: HostVerified,
  keys: ReadonlyMap<string, string>,
): Promise<{ kept: HostVerified; length: number; issues: VerifyIssues }> {
  const probe = await probeHostChain(connection, kept.chainLength > 0 ? [kept.chainLength - 1] : []);
  if (kept.chainLength > 0 && probe.hashes.get(kept.chainLength - 1)?.hash !== kept.lastHash) {
    // entries removed or replaced behind the last call's back: everything again
    kept = new HostVerified();
  }
  for (let from = kept.chainLength; from < probe.length; from += entriesPerRead) {
    const rows = await readHostChain(connection, from, from + entriesPerRead);
    if (rows.length === 0) break;
    const checked = verifyHostChain(rows, keys, kept.chainIssues, from, kept.lastHash);
    for (const entry of checked) {
      kept.head = entry;
      const retention = entry.payload.retention;
      if (retention === undefined) continue;
      kept.chainIssues.warning(
        'host_events_retained',
        entry.hash,
        `retention (${retention.reason}) removed ${retention.events} host events of ${retention.digests.length} batches, captured ${retention.time_from ?? '-'} to ${retention.time_to ?? '-'}`,
      );
      // what was found of a digest retention removed is gone with it
      for (const digest of retention.digests) {
        kept.digestIssues.delete(BigInt(digest.seq_from));
        kept.open.delete(BigInt(digest.seq_from));
      }
    }
    kept.chainLength = from + rows.length;
    kept.lastHash = rows[rows.length - 1]!.hash;
  }
  return { kept, length: probe.length, issues: kept.chainIssues };
}

/**
 * The signed digests against the head's summary (when either changed), then the events from the
 * frontier on (checkFromFrontier).
 */
async function checkEvents(
  connection: StoreConnection,
  kept: HostVerified,
  recheck: EventRecheck,
  issues: VerifyIssues,
  pace?: (chunkMs: number) => Promise<void>,
): Promise<void> {
  const head = kept.head;
  const signedThrough = head === null ? -1n : BigInt(head.payload.digests.through_seq);
  const { print, end } = await fingerprintHostDigests(connection, signedThrough);
  // with no entry yet, whether there is anything to sign is what the check depends on
  const summaryFor = `${print}/${head?.hash ?? (end > 0n ? 'unsigned' : 'none')}`;
  if (summaryFor !== kept.summaryFor) {
    const found = new VerifyIssues();
    if (head === null) {
      if (end > 0n)
        found.warning('host_unsigned', hostScope, 'no host round has signed the host digests yet');
    } else {
      const digests = await readHostDigests(connection, -1n, signedThrough);
      const now = summarizeDigests(digests);
      const signed = head.payload.digests;
      if (now.root !== signed.root || now.count !== signed.count || now.events !== signed.events)
        found.error(
          'host_digests_mismatch',
          head.hash,
          `the latest host checkpoint signs ${signed.count} digests of ${signed.events} events; ${now.count} of ${now.events} are stored as signed`,
        );
      // what was found of a signed digest that is gone goes with it (its removal is reported above)
      const stored = new Set(digests.map((digest) => digest.seqFrom));
      for (const seqFrom of kept.digestIssues.keys())
        if (seqFrom <= signedThrough && !stored.has(seqFrom)) kept.digestIssues.delete(seqFrom);
    }
    kept.summaryFor = summaryFor;
    kept.summaryIssues = found;
  }
  const fresh = kept.frontier < end ? await checkFromFrontier(connection, kept, end, recheck, pace) : null;
  for (const found of kept.digestIssues.values()) issues.merge(found);
  issues.merge(kept.unsealed);
  for (const digest of kept.open.values()) issues.merge(digest.issues);
  if (fresh !== null) issues.merge(fresh);
  issues.merge(kept.summaryIssues);
}
