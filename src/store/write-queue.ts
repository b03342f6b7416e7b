/** Runs write transactions one at a time on the store's writer connection, in arrival order. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private counted = 0;

  /**
   * Runs `write` after every write queued before it; its failure does not stop the queue. A
   * `housekeeping` write (periodic upkeep: folds, the spool's expiry) does not count in `generation`;
   * a write with `leftWork` counts only when that says so of its result (or when it fails).
   */
  run<T>(
    write: () => Promise<T>,
    options: { housekeeping?: boolean; leftWork?: (result: T) => boolean } = {},
  ): Promise<T> {
    const { housekeeping = false, leftWork } = options;
    const result = this.tail.then(async () => {
      if (housekeeping) return write();
      if (leftWork === undefined) {
        this.counted++;
        return write();
      }
      // counted before the next write starts, as a write counted at its start would be
      let counts = true;
      try {
        const value = await write();
        counts = leftWork(value);
        return value;
      } finally {
        if (counts) this.counted++;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * How many writes (but housekeeping, and those that said they left nothing) have run so far:
   * periodic work (sealing, checkpoints) compares it with what it saw last, so that it runs only
   * after something it may have to follow up was written (its own write counts too).
   */
  get generation(): number {
    return this.counted;
  }
}
