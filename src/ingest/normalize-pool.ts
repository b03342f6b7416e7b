/** The normalize pool: piscina threads running workers/normalize.task.ts. */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

const taskFile = new URL('../../workers/normalize.task.js', import.meta.url).href;

/**
 * A fixed-size pool (one thread per core by default). Threads are never retired when idle: each
 * holds a binding replica that a fresh thread would have to rebuild.
 */
export function createNormalizePool(threads = availableParallelism()): Piscina {
  return new Piscina({
    filename: taskFile,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 2 ** 31 - 1,
  });
}
