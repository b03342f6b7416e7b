// Entry point of the snapshot threads (piscina): one snapshot of a recorded command's cwd per task.
import { snapshot, type Snapshot } from '../src/provenance/record/file-effects.js';
import type { SnapshotTask } from '../src/provenance/record/snapshot-pool.js';
import { announceThread } from '../src/shared/thread-id.js';

announceThread('snapshot');

export default function take(task: SnapshotTask): Snapshot {
  return snapshot(task.root, task.limits, task.ignore);
}
