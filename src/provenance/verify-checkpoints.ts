/**
 * Verification of a run's signed checkpoints: each checkpoint object has its envelope, the envelope
 * carries exactly the object's bytes, is signed by a key this store knows and verifies under it,
 * and the last checkpoint names the run's current chain heads.
 */
import { checkpointPayloadType, verifyEnvelope, type DsseEnvelope } from './dsse.js';
import { sha256 } from './graph-object.js';
import type { VerifyIssues } from './verify-issues.js';
import type { CheckedObject } from './verify-objects.js';

/** A checkpoints row with its envelope. */
export interface CheckpointRow {
  hash: string;
  envelope: string;
  key_id: string;
}

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
    verifyEnvelopeRow(checked.hash, row, keys, issues);
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

function verifyEnvelopeRow(
  hash: string,
  row: CheckpointRow,
  keys: ReadonlyMap<string, string>,
  issues: VerifyIssues,
): void {
  let envelope: DsseEnvelope;
  try {
    envelope = JSON.parse(row.envelope) as DsseEnvelope;
    if (typeof envelope.payload !== 'string' || !Array.isArray(envelope.signatures)) throw new TypeError();
  } catch {
    issues.error('checkpoint_payload_mismatch', hash, 'the stored envelope is not a DSSE envelope');
    return;
  }
  if (
    envelope.payloadType !== checkpointPayloadType ||
    sha256(Buffer.from(envelope.payload, 'base64')) !== hash
  ) {
    issues.error('checkpoint_payload_mismatch', hash, 'the envelope does not carry this checkpoint');
    return;
  }
  const keyIds = envelope.signatures.map((signature) => signature.keyid);
  const known = keyIds.filter((keyId) => keys.has(keyId));
  if (known.length === 0) {
    issues.error(
      'checkpoint_key_unknown',
      hash,
      `signed by ${keyIds.join(', ') || 'no key'}, not a key of this store`,
    );
    return;
  }
  let valid = false;
  try {
    valid = known.some((keyId) => verifyEnvelope(envelope, keyId, keys.get(keyId)!));
  } catch {
    valid = false; // a signature that is not even well-formed
  }
  if (!valid) issues.error('checkpoint_signature_invalid', hash, 'the signature does not verify');
}
