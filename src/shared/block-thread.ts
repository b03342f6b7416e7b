/** Blocks this thread for `ms`, as a stuck disk, a runaway query or a descheduled process would (test fault injection only). */
export function blockThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
