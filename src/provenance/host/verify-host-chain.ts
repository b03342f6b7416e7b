/**
 * Verification of the host chain: every entry's bytes hash to its address, name the entry before
 * it, carry their index, and are signed (DSSE, a key this store knows) over exactly those bytes.
 * What the entries record (the latest one's digest summary, every retention) is handed back for
 * the checks against the stored digests (verify-host.sql.ts).
 */
import { sha256 } from '../graph-object.js';
import type { VerifyIssues } from '../verify-issues.js';
import { verifyStoredEnvelope, type SignedKind } from '../verify-stored-envelope.js';
import { hostPayloadType, type HostEntryPayload, type HostEntryRow } from './host-chain.sql.js';

/** A chain entry that checked out, with its payload. */
export interface CheckedHostEntry {
  hash: string;
  payload: HostEntryPayload;
}

const hostEntrySigned: SignedKind = {
  payloadType: hostPayloadType,
  name: 'this host chain entry',
  unknownKey: () => 'signed by no key of this store',
};

/**
 * Checks entries `start`, `start + 1`, ... of the chain (`after`: the hash of the entry before
 * `start`, which was checked already); returns those whose bytes are intact, in order.
 */
export function verifyHostChain(
  rows: readonly HostEntryRow[],
  keys: ReadonlyMap<string, string>,
  issues: VerifyIssues,
  start = 0,
  after: string | null = null,
): CheckedHostEntry[] {
  const checked: CheckedHostEntry[] = [];
  let previous = after;
  rows.forEach((row, offset) => {
    const i = start + offset;
    if (Number(row.chain_index) !== i)
      issues.error(
        'chain_gap',
        row.hash,
        `host chain entry ${String(row.chain_index)} stands at position ${i}`,
      );
    if (sha256(row.body) !== row.hash) {
      issues.error(
        'object_hash_mismatch',
        row.hash,
        "the host chain entry's bytes do not hash to its address",
      );
      previous = row.hash;
      return;
    }
    let body: { kind?: unknown; parents?: unknown; payload?: HostEntryPayload };
    try {
      body = JSON.parse(row.body) as typeof body;
    } catch {
      body = {};
    }
    if (body.kind !== 'host_checkpoint' || !Array.isArray(body.parents) || typeof body.payload !== 'object') {
      issues.error('object_malformed', row.hash, 'not a host chain entry');
      previous = row.hash;
      return;
    }
    const expected = previous === null ? [] : [previous];
    if (JSON.stringify(body.parents) !== JSON.stringify(expected) || body.payload.index !== i)
      issues.error('chain_link_broken', row.hash, 'the host chain entry does not follow the entry before it');
    verifyStoredEnvelope(row.hash, row.envelope, hostEntrySigned, keys, issues);
    checked.push({ hash: row.hash, payload: body.payload });
    previous = row.hash;
  });
  return checked;
}
