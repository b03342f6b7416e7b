/**
 * Waiting on what a test can observe, instead of sleeping: `eventually` asks `probe` again until
 * `done` holds of its answer, and fails naming what it waited for and the last answer when the
 * deadline passes (a deadline is a bound on a hang, never a timing assertion).
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep asking before failing; default 20 s. */
  timeoutMs?: number;
  /** The pause between two asks; default 20 ms. */
  everyMs?: number;
  /** At the deadline, return the last answer for the caller's assertions to name what is missing. */
  returnLast?: boolean;
}

/** Waits up to 10 s, then hands the last answer to the caller's own assertions. */
export const softDeadline: EventuallyOptions = { timeoutMs: 10_000, returnLast: true };

/** Asks `probe` until `done(answer)`, and returns that answer. */
export async function eventually<T>(
  what: string,
  probe: () => T | Promise<T>,
  done: (answer: T) => boolean,
  { timeoutMs = 20_000, everyMs = 20, returnLast = false }: EventuallyOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (done(answer)) return answer;
    if (performance.now() > deadline) {
      if (returnLast) return answer;
      assert.fail(`waited ${timeoutMs} ms for ${what}; the last answer was ${describe(answer)}`);
    }
    await delay(everyMs);
  }
}

/** Asks `read` until it gives a value (not undefined), and returns it. */
export async function eventuallyDefined<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  options?: EventuallyOptions,
): Promise<T> {
  return (await eventually(what, read, (value) => value !== undefined, options)) as T;
}

function describe(answer: unknown): string {
  try {
    return JSON.stringify(answer)?.slice(0, 500) ?? String(answer);
  } catch {
    return String(answer);
  }
}
