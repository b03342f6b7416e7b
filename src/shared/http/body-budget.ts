/**
 * Bytes of request bodies held in memory, counted from their first byte until their answer is sent.
 * An endpoint with a budget is answered 429 `backpressure` the moment a body does not fit, before
 * more of it is read into memory.
 */
export interface BodyBudget {
  /** Reserves `bytes` more; false (and the refusal counted) when they do not fit. */
  tryReserve(bytes: number): boolean;
  /** Gives back bytes reserved earlier, once their request is answered or aborted. */
  release(bytes: number): void;
}

/** A budget of `limit` bytes. One body is always admitted when nothing is held, whatever its size. */
export class ByteBudget implements BodyBudget {
  private held = 0;
  private refusals = 0;

  constructor(private readonly limit: number) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Requests refused since the daemon started (their bodies were dropped unread). */
  get refusedRequests(): number {
    return this.refusals;
  }

  tryReserve(bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.limit) {
      this.refusals++;
      return false;
    }
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held -= bytes;
  }
}
