// Entry point of a normalize pool thread (piscina): one task per NDJSON slice (src/ingest/normalize.ts).
import { normalizeBatch, type NormalizeResult, type NormalizeTask } from '../src/ingest/normalize.js';
import { workerBindingReplica } from '../src/telemetry/binding-channel.js';

const replica = workerBindingReplica();
// The first task waits for the store's snapshot of bindings, but never long: correlating with an
// incomplete replica is safe, since the store re-checks such a batch's spooled rows at commit.
const ready = Promise.race([replica.synced, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);

export default async function normalize(task: NormalizeTask): Promise<NormalizeResult> {
  await ready;
  return normalizeBatch(task, replica);
}
