/**
 * The TLS pool: one piscina thread running workers/tls.task.ts, so each stream's state lives in one
 * place and chunks are read in the order the ring reader handed them (piscina runs one thread's
 * tasks one at a time, first come first served).
 */
import { Piscina } from 'piscina';
import type { TlsStats } from './reassembler.js';

const taskFile = new URL('../../../workers/tls.task.js', import.meta.url).href;

/** A batch of chunk records to read, or (batch null) a flush: idle streams, or every stream when final. */
export interface TlsTask {
  batch: Uint8Array | null;
  final: boolean;
}

/** What the task made: a batch for the normalize pool (sensor format), and the pool's counters. */
export interface TlsTaskResult {
  batch: Uint8Array;
  stats: TlsStats;
}

export class TlsPool {
  private readonly pool = new Piscina({
    filename: taskFile,
    minThreads: 1,
    maxThreads: 1,
    concurrentTasksPerWorker: 1,
    idleTimeout: 2 ** 31 - 1, // the thread holds the streams: it must never be retired
    // see normalize-pool.ts: a thread stopped while loading its task file must not abort the daemon
    execArgv: [...process.execArgv, '--no-experimental-require-module'],
    atomics: 'disabled',
  });

  /** Reads a batch of chunk records (transferred: the caller gives it up). */
  take(batch: Uint8Array): Promise<TlsTaskResult> {
    const task: TlsTask = { batch, final: false };
    return this.pool.run(task, { transferList: [batch.buffer as ArrayBuffer] }) as Promise<TlsTaskResult>;
  }

  /** Ends idle streams, or every stream when `final`. */
  flush(final: boolean): Promise<TlsTaskResult> {
    const task: TlsTask = { batch: null, final };
    return this.pool.run(task) as Promise<TlsTaskResult>;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
