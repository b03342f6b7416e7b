/** Runs write transactions one at a time on the store's writer connection, in arrival order. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private counted = 0;
  private finished = 0;

  /**
   * Runs `write` after every write queued before it; its failure does not stop the queue. A
   * `housekeeping` write (periodic upkeep: folds, the spool's expiry) does not count in `generation`,
   * nor in `changes` unless its `changed` says so of its result; a write with `leftWork` counts in
   * `generation` only when that says so of its result (or when it fails).
   */
  run<T>(
    write: () => Promise<T>,
    options: {
      housekeeping?: boolean;
      leftWork?: (result: T) => boolean;
      changed?: (result: T) => boolean;
    } = {},
  ): Promise<T> {
    const { housekeeping = false, leftWork, changed } = options;
    const result = this.tail.then(async () => {
      // counted in `changes` once it has ended (committed or not): never before its rows are readable
      let changes = !housekeeping;
      if (leftWork === undefined && !housekeeping) this.counted++;
      // counted before the next write starts, as a write counted at its start would be
      let counts = leftWork !== undefined && !housekeeping;
      try {
        const value = await write();
        if (counts) counts = leftWork!(value);
        if (housekeeping && changed !== undefined) changes = changed(value);
        return value;
      } catch (error) {
        if (housekeeping && changed !== undefined) changes = true; // what a failed write left is unknown
        throw error;
      } finally {
        if (counts) this.counted++;
        if (changes) this.finished++;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every write queued before the call has ended (committed or not). */
  ended(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /**
   * How many writes (but housekeeping, and those that said they left nothing) have run so far:
   * periodic work (sealing, checkpoints) compares it with what it saw last, so that it runs only
   * after something it may have to follow up was written (its own write counts too).
   */
  get generation(): number {
    return this.counted;
  }

  /**
   * How many writes that may have changed the stored evidence have ended: every write but
   * housekeeping, and the housekeeping writes whose `changed` said so. Counted after a write ends,
   * so a reader that read it before its snapshot began and reads the same number now knows the
   * store holds what that snapshot saw: verify answers from what it kept (host/verify-host.sql.ts).
   */
  get changes(): number {
    return this.finished;
  }
}
