// Entry point of a normalize pool thread (piscina): one task per NDJSON slice (src/ingest/normalize.ts).
import { normalizeBatch, type NormalizeResult, type NormalizeTask } from '../src/ingest/normalize.js';
import { workerBindingReplica } from '../src/telemetry/binding-channel.js';

export default function normalize(task: NormalizeTask): NormalizeResult {
  return normalizeBatch(task, workerBindingReplica());
}
