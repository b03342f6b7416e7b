/** Latency of GET answers from a running daemon: timed series and deep cursors, for the query benchmarks. */
import type { RunningDaemon } from '../../test/support/daemon.js';
import { percentileMs } from './ingest-http.js';

/** What a timed series measured. */
export interface Latency {
  p50: number;
  p99: number;
  /** Bytes of the last answer. */
  bytes: number;
}

/** p50 and p99 of `repeats` GETs of `path` after `warmup` untimed ones; fails unless every answer is 200. */
export async function measureGet(
  daemon: RunningDaemon,
  path: string,
  repeats: number,
  warmup: number,
): Promise<Latency> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + repeats; i++) {
    const started = performance.now();
    const answer = await fetch(daemon.url + path);
    bytes = (await answer.arrayBuffer()).byteLength;
    if (i >= warmup) ms.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`${path} answered HTTP ${answer.status}`);
  }
  return { p50: percentileMs(ms, 50), p99: percentileMs(ms, 99), bytes };
}

/** The cursor `pages` pages of 1,000 into a paged list at `path` (which holds a query string). */
export async function deepCursor(daemon: RunningDaemon, path: string, pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const answer = await fetch(`${daemon.url}${path}&limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`);
    cursor = String(((await answer.json()) as { next_cursor: string | null }).next_cursor);
  }
  return cursor;
}

/** The p99 target of the query answers at 10M events (issue 24), in ms. */
export const queryTargetP99Ms = 20;

/** How a p99 compares with the 10M-event target: the ratio (<= 1 meets it) and whether it does. */
export function p99Target(p99: number): {
  target_p99_ms: number;
  p99_to_target: number;
  target_met: boolean;
} {
  return {
    target_p99_ms: queryTargetP99Ms,
    p99_to_target: Math.round((p99 / queryTargetP99Ms) * 1000) / 1000,
    target_met: p99 <= queryTargetP99Ms,
  };
}
