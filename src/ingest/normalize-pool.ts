/** The normalize pool: piscina threads running workers/normalize.task.ts. */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import type { Policy } from '../security/policy/policy.js';
import type { BindingLog } from '../telemetry/binding-log.js';

const taskFile = new URL('../../workers/normalize.task.js', import.meta.url).href;

/**
 * piscina loads a task file with `require` first; for our ES module that is Node 20's experimental
 * require(esm), and a thread stopped during that synchronous load aborted the whole daemon (SIGABRT,
 * stack in loadESMFromCJS, about one start in 300 under CI load). Without the feature, require fails
 * at once and piscina falls back to `import()`, which a stop can interrupt safely.
 */
const workerExecArgv = [...process.execArgv, '--no-experimental-require-module'];

/** Each thread's young generation, in MB: what a 1 MiB slice allocates fits in it. */
const youngGenerationMb = 64;

/**
 * A pool of up to one thread per core (by default), sharing the binding log with its threads. The
 * first task starts the first thread, and a task that finds every thread busy another: a daemon
 * that never ingests never pays the ~0.1 s of CPU a thread's start costs (measured: 0.92 s of CPU
 * from start to ready to stop instead of 1.00), nor a thread's memory. Threads are never retired
 * when idle: each holds a binding replica it would have to rebuild.
 * Atomics are off: an idle thread then waits in its event loop rather than blocked in Atomics.wait,
 * so V8's memory reducer runs there and gives back the 60-80 MB a thread's heap grows to under a
 * flood (tasks are 1 MiB slices: the faster wake-up of Atomics is not measurable at that size).
 */
export function createNormalizePool(
  bindingLog: BindingLog,
  policy: Policy,
  /** The host's resolvers the policy's `host_resolvers` conditions name (the gate's, too). */
  hostResolvers: readonly string[] = [],
  threads = availableParallelism(),
): Piscina {
  // gives the threads created from now on `gc`, for a scavenge between tasks (workers/normalize.task.ts);
  // worker execArgv takes no V8 flags, and V8's flags are the process's
  setFlagsFromString('--expose-gc');
  return new Piscina({
    filename: taskFile,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 2 ** 31 - 1,
    workerData: { bindingLog: bindingLog.buffer, policy, hostResolvers },
    execArgv: workerExecArgv,
    atomics: 'disabled',
    // a young generation of 64 MB: a task's objects (a slice's parsed lines) die young, and with
    // V8's default one scavenge after another copied them, 1.5 µs of a task's 9 µs an event (measured)
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
  });
}
