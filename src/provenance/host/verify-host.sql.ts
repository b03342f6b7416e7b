/**
 * Verification of the host events (no run) in the store actor, answered as a VerifyResult with
 * run_id `host`: the host chain (verify-host-chain.ts); every host event's hash; every host digest's
 * count and Merkle root over the host events in its range; every host event in some digest; the
 * digests the latest chain entry signs still stored as signed; a digest whose events a binding
 * claimed into runs lacks only as many as left it that way. A removal is accepted only as the chain
 * records it: each retention is reported as a warning (`host_events_retained`), never silently.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { VARCHAR } from '@duckdb/node-api';
import { list, raw, readRows, sql } from '../../store/sql.js';
import { merkleRoot } from '../merkle.js';
import type { EventRecheck } from '../verify-events.sql.js';
import { VerifyIssues } from '../verify-issues.js';
import type { VerifyResult } from '../verify-result.js';
import { readHostChain } from './host-chain.sql.js';
import { readHostDigests, summarizeDigests, type HostDigest } from './host-digests.sql.js';
import { hostScope } from './host-scope.js';
import { verifyHostChain } from './verify-host-chain.js';

/** Verifies the host events and the host chain. */
export async function verifyHost(connection: DuckDBConnection, recheck: EventRecheck): Promise<VerifyResult> {
  const issues = new VerifyIssues();
  const keys = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys`,
  );
  const entries = verifyHostChain(
    await readHostChain(connection),
    new Map(keys.map((key) => [key.key_id, key.public_key_pem])),
    issues,
  );
  await checkEventHashes(connection, recheck, issues);
  const digests = await readHostDigests(connection);
  await checkDigests(connection, digests, issues);
  const head = entries[entries.length - 1];
  if (head === undefined) {
    if (digests.length > 0)
      issues.warning('host_unsigned', hostScope, 'no host round has signed the host digests yet');
  } else {
    const through = BigInt(head.payload.digests.through_seq);
    const now = summarizeDigests(digests.filter((digest) => digest.seqFrom <= through));
    const signed = head.payload.digests;
    if (now.root !== signed.root || now.count !== signed.count || now.events !== signed.events)
      issues.error(
        'host_digests_mismatch',
        head.hash,
        `the latest host checkpoint signs ${signed.count} digests of ${signed.events} events; ${now.count} of ${now.events} are stored as signed`,
      );
  }
  for (const entry of entries) {
    const retention = entry.payload.retention;
    if (retention === undefined) continue;
    issues.warning(
      'host_events_retained',
      entry.hash,
      `retention (${retention.reason}) removed ${retention.events} host events of ${retention.digests.length} batches, captured ${retention.time_from ?? '-'} to ${retention.time_to ?? '-'}`,
    );
  }
  return {
    schema_version: 'provenance.verify/v1',
    run_id: hostScope,
    status: issues.errors > 0 ? 'failed' : 'ok',
    issue_count: issues.errors + issues.warnings,
    error_count: issues.errors,
    warning_count: issues.warnings,
    issues: issues.listed,
  };
}

/** Host rows whose stored hash DuckDB's rehash disagrees with, rehashed again exactly. */
async function checkEventHashes(
  connection: DuckDBConnection,
  recheck: EventRecheck,
  issues: VerifyIssues,
): Promise<void> {
  const suspects = await readRows<{ id: string; hash: string }>(
    connection,
    sql`SELECT id, hash, ${raw(recheck.columns)} FROM events
        WHERE run_id IS NULL AND 'sha256:' || sha256(${raw(recheck.contentSql)}) IS DISTINCT FROM hash ORDER BY seq`,
  );
  for (const row of suspects)
    if (recheck.rehash(row as never) !== row.hash)
      issues.error('event_hash_mismatch', row.id, 'its stored facts do not hash to its stored hash');
}

/**
 * Each digest against the host events in its range (in seq order), and every host event against
 * the digests: one pass, each event matched to the digest that starts at or before it.
 */
async function checkDigests(
  connection: DuckDBConnection,
  digests: readonly HostDigest[],
  issues: VerifyIssues,
): Promise<void> {
  const rows = await readRows<{ id: string; seq: bigint; hash: string; f: bigint | null }>(
    connection,
    sql`SELECT e.id, e.seq, e.hash, d.seq_from AS f FROM (SELECT id, seq, hash FROM events WHERE run_id IS NULL) e
        ASOF LEFT JOIN (SELECT seq_from FROM event_batches WHERE run_id IS NULL AND events > 0) d
        ON e.seq >= d.seq_from ORDER BY e.seq`,
  );
  const byStart = new Map(digests.map((digest) => [digest.seqFrom, digest]));
  const leaves = new Map<bigint, string[]>();
  for (const row of rows) {
    const digest = row.f === null ? undefined : byStart.get(row.f);
    if (digest === undefined || row.seq >= digest.seqTo) {
      issues.error('unsealed_event', row.id, 'a host event no host digest seals');
      continue;
    }
    const hashes = leaves.get(digest.seqFrom);
    if (hashes === undefined) leaves.set(digest.seqFrom, [row.hash]);
    else hashes.push(row.hash);
  }
  const partial: { digest: HostDigest; lacking: number }[] = [];
  for (const digest of digests) {
    const hashes = leaves.get(digest.seqFrom) ?? [];
    if (hashes.length > digest.events)
      issues.error(
        'batch_count_mismatch',
        digest.batchId,
        `the host digest seals ${digest.events} events; ${hashes.length} are stored in its range`,
      );
    else if (hashes.length < digest.events) partial.push({ digest, lacking: digest.events - hashes.length });
    else if (merkleRoot(hashes) !== digest.merkleRoot)
      issues.error(
        'batch_root_mismatch',
        digest.batchId,
        "the host events' Merkle root differs from the digest's",
      );
  }
  await checkClaimed(connection, partial, issues);
}

/**
 * A host digest lacking events is honest only when bindings claimed exactly that many of its batch
 * into runs: the batch's events in runs, less those its run digests sealed at commit.
 */
async function checkClaimed(
  connection: DuckDBConnection,
  partial: readonly { digest: HostDigest; lacking: number }[],
  issues: VerifyIssues,
): Promise<void> {
  if (partial.length === 0) return;
  const batchIds = list(
    partial.map(({ digest }) => digest.batchId),
    VARCHAR,
  );
  const inRuns = await readRows<{ b: string; n: bigint }>(
    connection,
    sql`SELECT regexp_extract(id, '^(.*)\\.[0-9]+$', 1) AS b, count(*) AS n FROM events
        WHERE run_id IS NOT NULL AND b IN (SELECT unnest(${batchIds})) GROUP BY b`,
  );
  const atCommit = await readRows<{ b: string; n: bigint }>(
    connection,
    sql`SELECT batch_id AS b, sum(events)::BIGINT AS n FROM event_batches
        WHERE run_id IS NOT NULL AND batch_id IN (SELECT unnest(${batchIds})) GROUP BY b`,
  );
  const claimed = new Map(inRuns.map((row) => [row.b, Number(row.n)]));
  for (const row of atCommit) claimed.set(row.b, (claimed.get(row.b) ?? 0) - Number(row.n));
  for (const { digest, lacking } of partial) {
    const moved = claimed.get(digest.batchId) ?? 0;
    if (moved !== lacking)
      issues.error(
        'host_events_missing',
        digest.batchId,
        `the host digest seals ${digest.events} events; ${lacking} are gone from it and ${moved} of its batch joined runs since`,
      );
  }
}
