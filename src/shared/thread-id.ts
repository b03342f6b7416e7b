/**
 * The kernel's id of the calling thread, so an operator (`top -H`, /proc/PID/task/TID) and the
 * benchmarks' profiles can tell provd's threads apart: Node 20 gives every thread the name "node".
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { log } from './log.js';

/** The calling thread's TID (Linux: /proc/thread-self links to PID/task/TID), or null elsewhere. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) ? tid : null;
  } catch {
    return null;
  }
}

/** Logs which thread of provd's this is (`role`: main, store, normalize, tls) and its TID. */
export function announceThread(role: string): void {
  log('debug', 'thread', { role, tid: currentThreadId() });
}

/** TIDs of every thread of this process now (empty where /proc does not say). */
export function listThreadIds(): Set<number> {
  try {
    return new Set(readdirSync('/proc/self/task').map(Number));
  } catch {
    return new Set();
  }
}

/**
 * Logs the threads started since `before` was listed as one role (the store's DuckDB: its own
 * threads, and the libuv pool its calls run on).
 */
export function announceThreadsSince(before: ReadonlySet<number>, role: string): void {
  const tids = [...listThreadIds()].filter((tid) => !before.has(tid));
  log('debug', 'threads', { role, tids });
}

/**
 * Logs the TIDs of libuv's thread pool (`role` pool), which runs async file I/O and DuckDB's calls.
 * Concurrent readlinks of /proc/thread-self each answer with the pool thread that ran them; a thread
 * that ran none is found by how libuv starts its pool: all its threads at once, at the first async
 * call, after V8's own threads; so, called at the daemon's start, they are the newest threads.
 */
export async function announcePoolThreads(): Promise<void> {
  // at the daemon's start the pool is the newest thread group: V8's threads and the main thread came first
  const newest = [...listThreadIds()].sort((a, b) => a - b);
  const probes = Array.from({ length: 64 }, () => readlink('/proc/thread-self').catch(() => ''));
  const seen = new Set((await Promise.all(probes)).map((link) => Number(link.split('/').pop())));
  const found = [...seen].filter((tid) => Number.isSafeInteger(tid) && tid > 0);
  const size = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4);
  const run = newest.slice(-size);
  const tids = found.every((tid) => run.includes(tid)) ? run : found;
  log('debug', 'threads', { role: 'pool', tids });
}
