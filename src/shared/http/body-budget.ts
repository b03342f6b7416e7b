/**
 * Bytes of request bodies held in memory, counted from their first byte until their answer is sent.
 * An endpoint with a budget is answered 429 `backpressure` the moment a body does not fit, before
 * more of it is read into memory.
 */
export interface BodyBudget {
  /**
   * Reserves `bytes` more for a body that holds `own` already; undefined when they fit, else why
   * not (and the refusal is counted).
   */
  tryReserve(bytes: number, own: number): string | undefined;
  /** Gives back bytes reserved earlier, once their request is answered or aborted. */
  release(bytes: number): void;
}

/** The two limits a budget answers 429 by. */
export interface BudgetLimits {
  /** Bytes of bodies held at once. */
  heldBytes: number;
  /**
   * The process's resident memory: past it, no more body bytes are taken in, whatever the bodies
   * hold, since what bodies cost downstream (parsing, commits) is not their own size.
   */
  residentBytes: number;
}

/**
 * A budget bounded by held bytes and by resident memory, reserved as a body's bytes arrive (not as
 * its Content-Length declares them: idle connections that declare 64 MiB hold nothing). One body is
 * always admitted when no other holds anything, whatever its size and the memory in use, so the
 * daemon always makes progress.
 */
export class ByteBudget implements BodyBudget {
  private held = 0;
  private refusals = 0;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly readResidentBytes: () => number = () => process.memoryUsage.rss(),
  ) {}

  /** Bytes reserved now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Requests refused since the daemon started (their bodies were dropped unread). */
  get refusedRequests(): number {
    return this.refusals;
  }

  tryReserve(bytes: number, own: number): string | undefined {
    const refusal = this.held === own ? undefined : this.refusal(bytes);
    if (refusal !== undefined) {
      this.refusals++;
      return refusal;
    }
    this.held += bytes;
    return undefined;
  }

  release(bytes: number): void {
    this.held -= bytes;
  }

  private refusal(bytes: number): string | undefined {
    if (this.held + bytes > this.limits.heldBytes)
      return `bodies in memory would exceed ${this.limits.heldBytes} bytes`;
    const resident = this.readResidentBytes();
    if (resident > this.limits.residentBytes)
      return `resident memory ${resident} bytes exceeds ${this.limits.residentBytes}`;
    return undefined;
  }
}
