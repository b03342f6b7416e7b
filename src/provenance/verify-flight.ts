/**
 * One verification of a subject (the host events, a run) at a time, shared, and its answer kept
 * while nothing changed: a verify called in a loop, or by many clients at once, costs the store
 * one verification per change, not one per call. A subject's `version` names everything its answer
 * depends on (the write queue's `changes`, for one); it is read before a verification's snapshot
 * begins, so an answer is never kept under a version newer than what it saw.
 */

/** What a verification hands back: its answer, and the version read before its snapshot began. */
export interface Verified<Result> {
  version: string;
  result: Result;
}

export class VerifyFlight<Result> {
  private kept: Verified<Result> | null = null;
  private running: { version: string; answer: Promise<Result> } | null = null;
  private next: Promise<Result> | null = null;

  constructor(
    private readonly version: () => string,
    private readonly verify: () => Promise<Verified<Result>>,
    /** False: every call verifies (or joins one that began after the last change); nothing is kept. */
    private readonly keep = true,
  ) {}

  /**
   * The kept answer when the version is unchanged since it was verified; else the running
   * verification when nothing changed since it began; else one more after it, shared by every
   * caller until it begins (so at most two are ever waited on).
   */
  answer(): Promise<Result> {
    const now = this.version();
    if (this.kept !== null && this.kept.version === now) return Promise.resolve(this.kept.result);
    if (this.running === null) return this.start(now);
    if (this.running.version === now) return this.running.answer;
    this.next ??= this.running.answer
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.next = null;
        return this.answer();
      });
    return this.next;
  }

  /** Whether a verification runs or waits to. */
  get busy(): boolean {
    return this.running !== null || this.next !== null;
  }

  private start(now: string): Promise<Result> {
    const answer = this.verify()
      .then(({ version, result }) => {
        if (this.keep) this.kept = { version, result };
        return result;
      })
      .finally(() => {
        this.running = null;
      });
    this.running = { version: now, answer };
    return answer;
  }
}
