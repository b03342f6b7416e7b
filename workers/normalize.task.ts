// Entry point of a normalize pool thread (piscina): one task per NDJSON slice (src/ingest/normalize.ts).
import { workerData } from 'piscina';
import { normalizeBatch, type NormalizeResult, type NormalizeTask } from '../src/ingest/normalize.js';
import { BindingLog } from '../src/telemetry/binding-log.js';
import type { Policy } from '../src/security/policy/policy.js';
import { PolicyEngine } from '../src/security/policy/policy-engine.js';
import { BindingReplica } from '../src/telemetry/binding-replica.js';
import { announceThread } from '../src/shared/thread-id.js';

announceThread('normalize');
const data = workerData as { bindingLog: SharedArrayBuffer; policy: Policy };
const log = new BindingLog(data.bindingLog);
const replica = new BindingReplica();
// the daemon checked and compiled this policy at start: each thread compiles its own copy
const policy = new PolicyEngine(data.policy);

export default function normalize(task: NormalizeTask): NormalizeResult {
  log.readNew((binding) => replica.add(binding)); // what the main thread appended since the last task
  return normalizeBatch(task, replica, policy);
}
