/**
 * Verification of the host events (no run) in the store actor, answered as a VerifyResult with
 * run_id `host`, and kept: a call checks what was added since the last one and reuses what that
 * found. Checked each call, in one snapshot: the host chain's entries added since (and that the
 * entry verified last is still there, else the whole chain again); the anchor file's new lines and
 * the chain's tail against it (verify-host-anchor.sql.ts); the stored digests against the latest
 * entry's signed summary, when either changed; and the host events from the frontier on (every
 * event past the last digest whose events were all final) in bounded chunks
 * (verify-host-events.sql.ts). A removal is accepted only as the chain records it: each retention
 * is a warning (`host_events_retained`), never silent.
 *
 * What a cheap call gives up: a row below the frontier edited after it was verified is not read
 * again (its digest row is: the digests' fingerprint is taken every call). `full` verifies
 * everything again from the start, in the same bounded chunks; a full verification also runs in
 * the background when the last one is older than `fullEveryMs` and the store is idle.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, sql } from '../../store/sql.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import type { VerifyResult } from '../verify-result.js';
import { AnchorCheck } from './verify-host-anchor.sql.js';
import { probeHostChain, readHostChain } from './host-chain.sql.js';
import { fingerprintHostDigests, readHostDigests, summarizeDigests } from './host-digests.sql.js';
import type { HostEntryRef } from './host-keeper.js';
import { hostScope } from './host-scope.js';
import { verifyHostChain, type CheckedHostEntry } from './verify-host-chain.js';
import { checkHostEvents } from './verify-host-events.sql.js';

/** Entries read and checked at a time. */
const entriesPerRead = 1000;

/** What the daemon's host rounds tell verify: the newest entry anchored, and those being anchored. */
export interface AnchorWitness {
  /** The index of the newest entry the daemon signed or anchored (Infinity when it runs no rounds). */
  through(): number;
  pending(): readonly HostEntryRef[];
}

/** What verify-host keeps between calls. */
class HostVerified {
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
  /** The digests' fingerprint and head hash the summary check ran for, and what it found. */
  summaryFor = '';
  summaryIssues = new VerifyIssues();
}

/** Verifies the host events and chain, keeping what it found; concurrent calls share one verification. */
export class HostVerifier {
  private kept = new HostVerified();
  private running: Promise<VerifyResult> | null = null;
  private runningFull = false;
  /** When the last full verification finished (ms since the epoch), and how long it took. */
  lastFull: { atMs: number; ms: number } | null = null;

  constructor(
    private readonly snapshot: <T>(body: (connection: DuckDBConnection) => Promise<T>) => Promise<T>,
    private readonly recheck: EventRecheck,
    private readonly anchorFile: string,
    private readonly witness: AnchorWitness,
  ) {}

  /** The host events verified; `full` checks everything again (after a call in flight, if any). */
  async verify(full = false): Promise<VerifyResult> {
    while (this.running !== null) {
      const running = this.running;
      if (!full || this.runningFull) return running;
      await running.catch(() => undefined);
    }
    this.runningFull = full;
    this.running = this.run(full).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(full: boolean): Promise<VerifyResult> {
    const started = performance.now();
    const kept = full ? new HostVerified() : this.kept;
    const through = this.witness.through(); // before the snapshot: what it may not hold yet is later
    try {
      const { result, verified } = await this.snapshot((connection) => this.check(connection, kept, through));
      this.kept = verified;
      if (full) this.lastFull = { atMs: Date.now(), ms: Math.round(performance.now() - started) };
      return result;
    } catch (error) {
      if (!full) this.kept = new HostVerified(); // half-updated: the next call starts over
      throw error;
    }
  }

  private async check(
    connection: DuckDBConnection,
    kept: HostVerified,
    through: number,
  ): Promise<{ result: VerifyResult; verified: HostVerified }> {
    const keys = new Map(
      (
        await readRows<{ key_id: string; public_key_pem: string }>(
          connection,
          sql`SELECT key_id, public_key_pem FROM signing_keys`,
        )
      ).map((key) => [key.key_id, key.public_key_pem]),
    );
    const chain = await this.checkChain(connection, kept, keys);
    const issues = new VerifyIssues();
    issues.merge(chain.issues);
    await chain.kept.anchor.check(
      connection,
      this.anchorFile,
      keys,
      chain.length,
      through,
      () => this.witness.pending(),
      issues,
    );
    await this.checkEvents(connection, chain.kept, issues);
    const result: VerifyResult = {
      schema_version: 'provenance.verify/v1',
      run_id: hostScope,
      status: issues.errors > 0 ? 'failed' : 'ok',
      issue_count: issues.errors + issues.warnings,
      error_count: issues.errors,
      warning_count: issues.warnings,
      issues: issues.listed,
    };
    return { result, verified: chain.kept };
  }

  /** The entries added since the last call; the whole chain when the one checked last is gone or changed. */
  private async checkChain(
    connection: DuckDBConnection,
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
        for (const digest of retention.digests) kept.digestIssues.delete(BigInt(digest.seq_from));
      }
      kept.chainLength = from + rows.length;
      kept.lastHash = rows[rows.length - 1]!.hash;
    }
    return { kept, length: probe.length, issues: kept.chainIssues };
  }

  /** The digests against the head's summary (when either changed), then the events from the frontier on. */
  private async checkEvents(
    connection: DuckDBConnection,
    kept: HostVerified,
    issues: VerifyIssues,
  ): Promise<void> {
    const { print, end } = await fingerprintHostDigests(connection);
    const summaryFor = `${print}/${kept.head?.hash ?? ''}`;
    if (summaryFor !== kept.summaryFor) {
      const digests = await readHostDigests(connection);
      const found = new VerifyIssues();
      const head = kept.head;
      if (head === null) {
        if (digests.length > 0)
          found.warning('host_unsigned', hostScope, 'no host round has signed the host digests yet');
      } else {
        const signedThrough = BigInt(head.payload.digests.through_seq);
        const now = summarizeDigests(digests.filter((digest) => digest.seqFrom <= signedThrough));
        const signed = head.payload.digests;
        if (now.root !== signed.root || now.count !== signed.count || now.events !== signed.events)
          found.error(
            'host_digests_mismatch',
            head.hash,
            `the latest host checkpoint signs ${signed.count} digests of ${signed.events} events; ${now.count} of ${now.events} are stored as signed`,
          );
      }
      const stored = new Set(digests.map((digest) => digest.seqFrom));
      for (const seqFrom of kept.digestIssues.keys())
        if (!stored.has(seqFrom)) kept.digestIssues.delete(seqFrom);
      kept.summaryFor = summaryFor;
      kept.summaryIssues = found;
    }
    const fresh = new VerifyIssues();
    if (kept.frontier < end) {
      const digests: [bigint, VerifyIssues][] = [];
      const unsealed: [bigint, string][] = [];
      const frontier = await checkHostEvents(
        connection,
        await readHostDigests(connection, kept.frontier),
        kept.frontier,
        end,
        this.recheck,
        {
          digest: (seqFrom, found) => digests.push([seqFrom, found]),
          unsealed: (seq, id) => unsealed.push([seq, id]),
        },
      );
      // below the new frontier it is final: kept; past it, found again by the next call
      for (const [seqFrom, found] of digests) {
        if (seqFrom >= frontier) fresh.merge(found);
        else if (found.errors + found.warnings > 0) kept.digestIssues.set(seqFrom, found);
      }
      for (const [seq, id] of unsealed)
        (seq < frontier ? kept.unsealed : fresh).error(
          'unsealed_event',
          id,
          'a host event no host digest seals',
        );
      kept.frontier = frontier;
    }
    for (const found of kept.digestIssues.values()) issues.merge(found);
    issues.merge(kept.unsealed);
    issues.merge(fresh);
    issues.merge(kept.summaryIssues);
  }
}
