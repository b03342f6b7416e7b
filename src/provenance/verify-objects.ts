/**
 * Verification of a run's objects: each one's address against its bytes, its parents, and the
 * chains (each index once, each object naming the one before, the recorded head last).
 */
import { parseObject, sha256, type GraphObject, type ObjectKind } from './graph-object.js';
import type { VerifyIssues } from './verify-issues.js';

/** An objects row of the run. */
export interface ObjectRow {
  hash: string;
  kind: string;
  run_id: string;
  body: string;
}

/** The chain each kind belongs to (the run object is the root of all); every other kind must be named here. */
const chainOf: Readonly<Record<string, string> & Record<Exclude<ObjectKind, 'run'>, string>> = {
  binding: 'context',
  hook_event: 'context',
  hook_content: 'context',
  agent_watch: 'context',
  tool_call: 'context',
  artifact: 'context',
  file_effect: 'context',
  event_batch: 'event_batch',
  checkpoint: 'checkpoint',
};

/** A verified object of the run. */
export interface CheckedObject {
  hash: string;
  object: GraphObject;
}

/**
 * Checks every object; returns the well-formed ones by hash. `elsewhere` tells whether a hash is
 * stored under another run; `heads` are run_heads' hashes by chain.
 */
export function verifyObjects(
  runId: string,
  runHash: string | null,
  rows: readonly ObjectRow[],
  heads: ReadonlyMap<string, string>,
  elsewhere: ReadonlySet<string>,
  issues: VerifyIssues,
): Map<string, CheckedObject> {
  const objects = new Map<string, CheckedObject>();
  for (const row of rows) {
    if (sha256(row.body) !== row.hash) {
      issues.error(
        'object_hash_mismatch',
        row.hash,
        `the stored ${row.kind} object does not hash to its address`,
      );
      continue;
    }
    let object: GraphObject;
    try {
      object = parseObject(row.body);
    } catch {
      issues.error('object_malformed', row.hash, 'the stored bytes are not a graph object');
      continue;
    }
    if (object.kind !== row.kind || object.run_id !== runId) {
      issues.error('object_malformed', row.hash, `the object says ${object.kind} of run ${object.run_id}`);
      continue;
    }
    objects.set(row.hash, { hash: row.hash, object });
  }
  if (runHash === null || objects.get(runHash)?.object.kind !== 'run') {
    issues.error('run_object_missing', runId, 'the run object is missing');
  }
  for (const { hash, object } of objects.values()) {
    for (const parent of object.parents) {
      if (objects.has(parent)) continue;
      if (elsewhere.has(parent))
        issues.error('parent_other_run', hash, `parent ${parent} belongs to another run`);
      else if (!rows.some((row) => row.hash === parent))
        issues.error('parent_missing', hash, `parent ${parent} is not stored`);
    }
  }
  verifyChains(runHash, objects, heads, issues);
  return objects;
}

/** Each chain runs 0..n-1, each object naming the one before (the run object first), its head last. */
function verifyChains(
  runHash: string | null,
  objects: ReadonlyMap<string, CheckedObject>,
  heads: ReadonlyMap<string, string>,
  issues: VerifyIssues,
): void {
  const chains = new Map<string, Map<number, CheckedObject[]>>();
  for (const checked of objects.values()) {
    const chain = chainOf[checked.object.kind];
    if (chain === undefined) continue;
    const index = checked.object.payload['index'];
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
      issues.error('object_malformed', checked.hash, 'a chained object without a valid index');
      continue;
    }
    const byIndex = chains.get(chain) ?? new Map<number, CheckedObject[]>();
    chains.set(chain, byIndex);
    byIndex.set(index, [...(byIndex.get(index) ?? []), checked]);
  }
  for (const [chain, byIndex] of chains) {
    const last = Math.max(...byIndex.keys());
    let previous = runHash;
    for (let index = 0; index <= last; index++) {
      const atIndex = byIndex.get(index);
      if (atIndex === undefined) {
        issues.error('chain_gap', `${chain}:${index}`, `the ${chain} chain has no object at index ${index}`);
        previous = null;
        continue;
      }
      if (atIndex.length > 1) {
        const hashes = atIndex.map((checked) => checked.hash).join(', ');
        issues.error('chain_fork', `${chain}:${index}`, `objects ${hashes} all claim index ${index}`);
      }
      for (const checked of atIndex) {
        // after a gap the link cannot be judged; the gap is already reported
        if (previous !== null && checked.object.parents[0] !== previous)
          issues.error(
            'chain_link_broken',
            checked.hash,
            `does not follow ${previous} in the ${chain} chain`,
          );
      }
      previous = atIndex[0]!.hash;
    }
    const head = heads.get(chain);
    const lastHashes = byIndex.get(last)!.map((checked) => checked.hash);
    if (head === undefined || !lastHashes.includes(head))
      issues.error(
        'chain_head_mismatch',
        chain,
        `the recorded head ${head ?? 'none'} is not the chain's last object`,
      );
  }
}
