/** Runs write transactions one at a time on the store's writer connection, in arrival order. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `write` after every write queued before it; its failure does not stop the queue. */
  run<T>(write: () => Promise<T>): Promise<T> {
    const result = this.tail.then(write);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
