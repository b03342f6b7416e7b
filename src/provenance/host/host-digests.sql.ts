/**
 * The digests of host events: event_batches rows with no run, one per ingest batch whose events no
 * binding claimed at commit, a Merkle root over those events in seq order. A host chain entry
 * (host-chain.sql.ts) signs them all as one root over one leaf per digest, so a digest row removed
 * or edited without a signed retention record shows at verify.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { readRows, sql } from '../../store/sql.js';
import { sha256 } from '../graph-object.js';
import { merkleRoot } from '../merkle.js';

/** One host digest as stored. */
export interface HostDigest {
  batchId: string;
  seqFrom: bigint;
  seqTo: bigint;
  events: number;
  merkleRoot: string;
}

/** What a host chain entry signs of the digests: how many, their events, one root, the last seq_from covered. */
export interface DigestsSummary {
  count: number;
  events: number;
  root: string;
  /** seq_from of the newest digest covered ("-1" with none): digests past it came later. */
  through_seq: string;
}

/**
 * Every host digest with events starting in [from, to], in seq order (seq_from is unique among
 * them: batches never overlap).
 */
export async function readHostDigests(
  connection: StoreConnection,
  from = -1n,
  to = 1n << 62n,
): Promise<HostDigest[]> {
  const rows = await readRows<{
    batch_id: string;
    seq_from: bigint;
    seq_to: bigint;
    events: bigint;
    merkle_root: string;
  }>(
    connection,
    sql`SELECT batch_id, seq_from, seq_to, events, merkle_root FROM event_batches
        WHERE run_id IS NULL AND events > 0 AND seq_from >= ${from} AND seq_from <= ${to}
        ORDER BY seq_from, batch_id`,
  );
  return rows.map((row) => ({
    batchId: row.batch_id,
    seqFrom: row.seq_from,
    seqTo: row.seq_to,
    events: Number(row.events),
    merkleRoot: row.merkle_root,
  }));
}

/**
 * A fingerprint of the host digests starting at or before `through` (those a chain entry signed)
 * as stored, and where the last digest of all ends: one pass over the digest rows (one per ingest
 * batch), so verify-host reads the signed ones again only when the fingerprint changed, and never
 * because a commit added one.
 */
export async function fingerprintHostDigests(
  connection: StoreConnection,
  through: bigint,
): Promise<{ print: string; end: bigint }> {
  const [row] = await readRows<{ print: string; end: bigint | null }>(
    connection,
    sql`SELECT concat_ws(':', count(*) FILTER (WHERE signed), sum(events) FILTER (WHERE signed),
          sum(seq_from) FILTER (WHERE signed), sum(seq_to) FILTER (WHERE signed),
          bit_xor(hash(batch_id, merkle_root)) FILTER (WHERE signed)) AS print, max(seq_to) AS end
        FROM (SELECT *, seq_from <= ${through} AS signed FROM event_batches WHERE run_id IS NULL AND events > 0)`,
  );
  return { print: row!.print, end: row!.end ?? 0n };
}

/** A digest as a leaf: the hash of its canonical JSON, so any field edited changes the root. */
export function digestLeaf(digest: HostDigest): string {
  return sha256(
    canonicalJson({
      batch_id: digest.batchId,
      events: digest.events,
      merkle_root: digest.merkleRoot,
      seq_from: digest.seqFrom.toString(),
      seq_to: digest.seqTo.toString(),
    }),
  );
}

/** The summary a chain entry signs of `digests` (in seq order). */
export function summarizeDigests(digests: readonly HostDigest[]): DigestsSummary {
  return {
    count: digests.length,
    events: digests.reduce((sum, digest) => sum + digest.events, 0),
    root: merkleRoot(digests.map(digestLeaf)),
    through_seq: (digests[digests.length - 1]?.seqFrom ?? -1n).toString(),
  };
}
