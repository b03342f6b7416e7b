/**
 * The snapshot threads: piscina threads running workers/snapshot.task.ts, so the snapshots of a
 * recorded command's cwd read their files with synchronous calls on threads of their own, never on
 * the libuv pool the store's DuckDB calls share (a slow or hostile file there held up every query).
 * Two threads: a record's two snapshots run one after the other, and a slow snapshot (hashing is
 * bounded at 10 s) leaves one thread for the next record.
 */
import { Piscina } from 'piscina';
import { ignoreNothing, type Snapshot, type SnapshotIgnore, type SnapshotLimits } from './file-effects.js';

const taskFile = new URL('../../../workers/snapshot.task.js', import.meta.url).href;

/** One snapshot to take. */
export interface SnapshotTask {
  root: string;
  limits: SnapshotLimits;
  ignore: SnapshotIgnore;
}

export class SnapshotPool {
  private readonly pool = new Piscina({
    filename: taskFile,
    minThreads: 0,
    maxThreads: 2,
    idleTimeout: 30_000, // records are rare: idle threads go
    // see normalize-pool.ts: a thread stopped while loading its task file must not abort the daemon
    execArgv: [...process.execArgv, '--no-experimental-require-module'],
    atomics: 'disabled',
  });

  take(root: string, limits: SnapshotLimits, ignore: SnapshotIgnore = ignoreNothing): Promise<Snapshot> {
    const task: SnapshotTask = { root, limits, ignore };
    return this.pool.run(task) as Promise<Snapshot>;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
