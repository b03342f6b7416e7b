/**
 * The host chain (table host_chain): entries `{kind: 'host_checkpoint', parents: [previous],
 * payload}` as canonical JSON, addressed by their sha256 and signed as DSSE envelopes with the
 * checkpoint key. Each entry signs the host digests that remain and, when a retention round removed
 * some, which ones and their roots; the chain keeps every removal on record after its rows are gone.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { BIGINT } from '../../store/duckdb-api.js';
import { execute, list, readRows, sql } from '../../store/sql.js';
import { signEnvelope } from '../dsse.js';
import { sha256 } from '../graph-object.js';
import type { SigningKey } from '../signing-key.js';
import type { DigestsSummary } from './host-digests.sql.js';

/** The payload type of host chain envelopes: never readable as a run's checkpoint. */
export const hostPayloadType = 'application/vnd.provd.host-checkpoint+json';

/** One host digest a retention round removed, with what it removed of it. */
export interface RetainedDigest {
  batch_id: string;
  seq_from: string;
  seq_to: string;
  /** The digest as stored: its events and root. */
  events: number;
  merkle_root: string;
  /** The events removed (fewer than `events` when a binding had claimed some into a run) and their root. */
  removed: number;
  removed_root: string;
}

/** What a retention round removed, as its entry records it. */
export interface Retention {
  reason: string;
  digests: RetainedDigest[];
  events: number;
  bytes: number;
  /** Capture times of the removed events, RFC 3339 (null when none were left to remove). */
  time_from: string | null;
  time_to: string | null;
}

/** An entry's payload. */
export interface HostEntryPayload {
  index: number;
  digests: DigestsSummary;
  retention?: Retention;
  /** Set on every entry signed since the anchor file (host-anchor.ts): its line must be there. */
  anchored?: true;
}

/** A stored entry. */
export interface HostEntryRow {
  chain_index: bigint;
  hash: string;
  body: string;
  envelope: string;
  key_id: string;
}

/** Entries `from` to `to` (exclusive), in order. */
export async function readHostChain(
  connection: StoreConnection,
  from = 0,
  to = Number.MAX_SAFE_INTEGER,
): Promise<HostEntryRow[]> {
  return readRows<HostEntryRow>(
    connection,
    sql`SELECT chain_index, hash, body, envelope, key_id FROM host_chain
        WHERE chain_index >= ${BigInt(from)} AND chain_index < ${BigInt(to)} ORDER BY chain_index`,
  );
}

/** The chain's length (entries are 0..n-1 when nobody removed one) and the hashes at `indices`. */
export async function probeHostChain(
  connection: StoreConnection,
  indices: readonly number[],
): Promise<{ length: number; hashes: Map<number, { hash: string; anchored: boolean }> }> {
  const [count] = await readRows<{ n: bigint; last: bigint | null }>(
    connection,
    sql`SELECT count(*) AS n, max(chain_index) AS last FROM host_chain`,
  );
  const rows =
    indices.length === 0
      ? []
      : await readRows<{ chain_index: bigint; hash: string; anchored: boolean | null }>(
          connection,
          sql`SELECT chain_index, hash, json_extract(body, '$.payload.anchored') = 'true'::JSON AS anchored
              FROM host_chain WHERE chain_index IN (SELECT unnest(${list(indices.map(BigInt), BIGINT)}))`,
        );
  return {
    // the last index + 1: a chain whose middle entries were removed is still as long as its end
    length: count!.last === null ? 0 : Math.max(Number(count!.n), Number(count!.last) + 1),
    hashes: new Map(
      rows.map((row) => [Number(row.chain_index), { hash: row.hash, anchored: row.anchored === true }]),
    ),
  };
}

/** Entries after `after` (and before `before`) that say they are anchored: index and hash, in order. */
export async function readAnchoredAfter(
  connection: StoreConnection,
  after: number,
  before = Number.MAX_SAFE_INTEGER,
): Promise<{ index: number; hash: string }[]> {
  const rows = await readRows<{ chain_index: bigint; hash: string }>(
    connection,
    sql`SELECT chain_index, hash FROM host_chain WHERE chain_index > ${BigInt(after)} AND chain_index < ${BigInt(before)}
        AND json_extract(body, '$.payload.anchored') = 'true'::JSON ORDER BY chain_index`,
  );
  return rows.map((row) => ({ index: Number(row.chain_index), hash: row.hash }));
}

/** The latest entry's hash, index and signed digest summary, or null for an empty chain. */
export async function readHostHead(
  connection: StoreConnection,
): Promise<{ hash: string; index: number; digests: DigestsSummary } | null> {
  const [row] = await readRows<{ hash: string; chain_index: bigint; body: string }>(
    connection,
    sql`SELECT hash, chain_index, body FROM host_chain ORDER BY chain_index DESC LIMIT 1`,
  );
  if (row === undefined) return null;
  const body = JSON.parse(row.body) as { payload: HostEntryPayload };
  return { hash: row.hash, index: Number(row.chain_index), digests: body.payload.digests };
}

/** Appends a signed entry after the head; call inside a write transaction. Returns its index and hash. */
export async function appendHostEntry(
  connection: StoreConnection,
  key: SigningKey,
  digests: DigestsSummary,
  retention: Retention | undefined,
): Promise<{ index: number; hash: string }> {
  const head = await readHostHead(connection);
  const index = head === null ? 0 : head.index + 1;
  const payload: HostEntryPayload = {
    index,
    digests,
    ...(retention !== undefined && { retention }),
    anchored: true,
  };
  const body = canonicalJson({
    kind: 'host_checkpoint',
    parents: head === null ? [] : [head.hash],
    payload,
  });
  const hash = sha256(body);
  const envelope = signEnvelope(hostPayloadType, Buffer.from(body), key.privateKey, key.keyId);
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  // verify finds the public key where it finds the run checkpoints' keys
  await execute(
    connection,
    sql`INSERT INTO signing_keys VALUES (${key.keyId}, ${key.publicKeyPem}, ${nowNs}) ON CONFLICT DO NOTHING`,
  );
  await execute(
    connection,
    sql`INSERT INTO host_chain VALUES (${BigInt(index)}, ${hash}, ${body}, ${JSON.stringify(envelope)},
        ${key.keyId}, ${nowNs})`,
  );
  return { index, hash };
}
