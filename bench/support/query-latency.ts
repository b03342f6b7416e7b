/** Latency of GET answers from a running daemon: timed series and deep cursors, for the query benchmarks. */
import type { RunningDaemon } from '../../test/support/daemon.js';
import { percentileMs } from './ingest-http.js';

/** What a timed series measured. */
export interface Latency {
  p50: number;
  p99: number;
  /** Bytes of the last answer. */
  bytes: number;
  /** The last answer's text. */
  text: string;
}

/**
 * p50 and p99 of `repeats` GETs of each of `paths` after `warmup` untimed ones; fails unless every
 * answer is 200. `interleaved`: one GET of each path in turn, so a burst of other work on the host
 * slows every series alike (their ratios are what --guard checks); otherwise one series after the other.
 */
export async function measureGets(
  daemon: RunningDaemon,
  paths: readonly string[],
  repeats: number,
  warmup: number,
  interleaved: boolean,
): Promise<Latency[]> {
  const ms = paths.map((): number[] => []);
  const last = paths.map(() => '');
  const get = async (index: number, timed: boolean): Promise<void> => {
    const path = paths[index]!;
    const started = performance.now();
    const answer = await fetch(daemon.url + path);
    last[index] = await answer.text();
    if (timed) ms[index]!.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`${path} answered HTTP ${answer.status}`);
  };
  const rounds = warmup + repeats;
  if (interleaved) {
    for (let round = 0; round < rounds; round++)
      for (let index = 0; index < paths.length; index++) await get(index, round >= warmup);
  } else {
    for (let index = 0; index < paths.length; index++)
      for (let round = 0; round < rounds; round++) await get(index, round >= warmup);
  }
  return paths.map((_path, index) => ({
    p50: percentileMs(ms[index]!, 50),
    p99: percentileMs(ms[index]!, 99),
    bytes: Buffer.byteLength(last[index]!),
    text: last[index]!,
  }));
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
