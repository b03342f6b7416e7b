/**
 * Wall time of the named steps of the store's write work (a commit's statements, a fold, a seal),
 * appended as one JSON line per unit of work to the file PROVD_TRACE_STEPS names: the ingest
 * benchmark's --profile reads it to split the store's time by statement. Unset (the default), a
 * step costs one branch.
 */
import { appendFileSync } from 'node:fs';

const traceFile = process.env['PROVD_TRACE_STEPS'];

/** Times the steps of one kind of work; `end` writes a line per unit. */
export class StepTrace {
  private steps: Record<string, number> = {};
  private started = 0;

  constructor(private readonly kind: string) {}

  /** True when steps are traced (PROVD_TRACE_STEPS is set). */
  static get enabled(): boolean {
    return traceFile !== undefined;
  }

  /** Marks the start of a unit of work (now, or at `at`, a performance.now() read earlier). */
  begin(at?: number): void {
    if (traceFile !== undefined) this.started = at ?? performance.now();
  }

  /** Adds `ms` to step `name` (a step timed by its caller). */
  record(name: string, ms: number): void {
    if (traceFile !== undefined) this.steps[name] = (this.steps[name] ?? 0) + ms;
  }

  /** Runs `step`, adding its wall time to `name`. */
  async time<T>(name: string, step: () => Promise<T>): Promise<T> {
    if (traceFile === undefined) return step();
    const start = performance.now();
    try {
      return await step();
    } finally {
      this.steps[name] = (this.steps[name] ?? 0) + performance.now() - start;
    }
  }

  /** Writes the unit's line: its total wall time, its steps and `fields`; then starts afresh. */
  end(fields: Record<string, number | string> = {}): void {
    if (traceFile === undefined) return;
    // hrtime is CLOCK_MONOTONIC, as the CPU profiles' timestamps: the bench cuts both by phase
    const atUs = Number(process.hrtime.bigint() / 1000n);
    const totalMs = performance.now() - this.started;
    appendFileSync(
      traceFile,
      JSON.stringify({ kind: this.kind, at_us: atUs, total_ms: totalMs, ...fields, steps: this.steps }) +
        '\n',
    );
    this.steps = {};
  }
}
