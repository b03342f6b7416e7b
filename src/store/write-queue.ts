/** Runs write transactions one at a time on the store's writer connection, in arrival order. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private started = 0;

  /**
   * Runs `write` after every write queued before it; its failure does not stop the queue. A
   * `housekeeping` write (periodic upkeep: folds, the spool's expiry) does not count in `generation`.
   */
  run<T>(write: () => Promise<T>, options: { housekeeping?: boolean } = {}): Promise<T> {
    const result = this.tail.then(() => {
      if (options.housekeeping !== true) this.started++;
      return write();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * How many writes (but housekeeping) have started so far: periodic work compares it with what it
   * saw last, so that it runs only after something was written (its own write counts too).
   */
  get generation(): number {
    return this.started;
  }
}
