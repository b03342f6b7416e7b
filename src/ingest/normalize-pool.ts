/** The normalize pool: piscina threads running workers/normalize.task.ts. */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { BindingLog } from '../telemetry/binding-log.js';

const taskFile = new URL('../../workers/normalize.task.js', import.meta.url).href;

/**
 * A fixed-size pool (one thread per core by default), sharing the binding log with its threads.
 * Threads are never retired when idle: each holds a binding replica it would have to rebuild.
 */
export function createNormalizePool(bindingLog: BindingLog, threads = availableParallelism()): Piscina {
  return new Piscina({
    filename: taskFile,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 2 ** 31 - 1,
    workerData: { bindingLog: bindingLog.buffer },
  });
}
