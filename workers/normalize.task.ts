// Entry point of a normalize pool thread (piscina): one task per NDJSON slice (src/ingest/normalize.ts).
import { workerData } from 'piscina';
import { normalizeBatch, type NormalizeResult, type NormalizeTask } from '../src/ingest/normalize.js';
import { BindingLog } from '../src/telemetry/binding-log.js';
import { BindingReplica } from '../src/telemetry/binding-replica.js';

const log = new BindingLog((workerData as { bindingLog: SharedArrayBuffer }).bindingLog);
const replica = new BindingReplica();

export default function normalize(task: NormalizeTask): NormalizeResult {
  log.readNew((binding) => replica.add(binding)); // what the main thread appended since the last task
  return normalizeBatch(task, replica);
}
