/**
 * Verification of a run's signed checkpoints: each checkpoint object has its envelope, the envelope
 * carries exactly the object's bytes, is signed by a key this store knows and verifies under it,
 * and the last checkpoint names the run's current chain heads.
 */
import { checkpointPayloadType } from './dsse.js';
import type { VerifyIssues } from './verify-issues.js';
import type { CheckedObject } from './verify-objects.js';
import { verifyStoredEnvelope, type SignedKind } from './verify-stored-envelope.js';

/** A checkpoints row with its envelope. */
export interface CheckpointRow {
  hash: string;
  envelope: string;
  key_id: string;
}

const checkpointSigned: SignedKind = {
  payloadType: checkpointPayloadType,
  name: 'this checkpoint',
  unknownKey: (keyIds) => `signed by ${keyIds.join(', ') || 'no key'}, not a key of this store`,
};

/** Checks every checkpoint of the run against its envelope, the known keys and the current heads. */
export function verifyCheckpoints(
  objects: ReadonlyMap<string, CheckedObject>,
  rows: readonly CheckpointRow[],
  keys: ReadonlyMap<string, string>,
  heads: ReadonlyMap<string, string>,
  runId: string,
  issues: VerifyIssues,
): void {
  const envelopes = new Map(rows.map((row) => [row.hash, row]));
  let last: CheckedObject | undefined;
  for (const checked of objects.values()) {
    if (checked.object.kind !== 'checkpoint') continue;
    if (last === undefined || Number(checked.object.payload['index']) > Number(last.object.payload['index']))
      last = checked;
    const row = envelopes.get(checked.hash);
    if (row === undefined) {
      issues.error('checkpoint_missing', checked.hash, 'the checkpoint has no signed envelope');
      continue;
    }
    verifyStoredEnvelope(checked.hash, row.envelope, checkpointSigned, keys, issues);
  }
  const chainHeads = [...heads].filter(([chain]) => chain !== 'checkpoint');
  if (last === undefined) {
    if (chainHeads.length > 0) issues.error('checkpoint_missing', runId, 'the run has no signed checkpoint');
    return;
  }
  const named = last.object.payload['heads'] as Record<string, { hash?: unknown }> | undefined;
  for (const [chain, hash] of chainHeads) {
    if (named?.[chain]?.hash !== hash)
      issues.error(
        'checkpoint_stale',
        last.hash,
        `the last checkpoint does not name the ${chain} chain's head ${hash}`,
      );
  }
}
