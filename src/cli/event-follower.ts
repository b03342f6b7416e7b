/**
 * `provd events --follow`: pages through a run's events, then keeps asking for the ones after the
 * last it printed, like `tail -f`, until stopped. Each poll resumes from the page's
 * `resume_cursor`: a store position, not a capture time, so an event committed later with an
 * earlier capture time is printed when it arrives rather than skipped.
 */
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import typia from 'typia';
import { maxPageLimit } from '../model/paging.js';
import type { TelemetryEvent } from '../telemetry/event-json.js';
import type { EventPageBody } from '../telemetry/telemetry-events.js';
import { isFailedRead, readDaemon, unreachableExitCode } from './output/daemon-read.js';

/** How long to wait after a page that held every event there was. */
export const followIntervalMs = 1000;

/** What to follow, and where each event goes. */
export interface FollowPlan {
  baseUrl: string;
  /** The list followed: `/v1/telemetry/events` (a run's) or `/v1/telemetry/host-events`. */
  path: string;
  /** The run, the type filter, and the cursor to start after (none: from the first event). */
  query: URLSearchParams;
  stderr: Writable;
  print(event: TelemetryEvent): void;
  /** Aborted (SIGINT) to stop following: the follower then resolves 0. */
  stop: AbortSignal;
}

/** Follows until `stop` aborts (0) or the daemon refuses or goes away (its exit code). */
export async function followEvents(plan: FollowPlan): Promise<number> {
  const query = new URLSearchParams(plan.query);
  query.set('limit', String(maxPageLimit));
  while (!plan.stop.aborted) {
    const read = await readDaemon(plan.baseUrl, `${plan.path}?${query.toString()}`, plan.stderr);
    if (isFailedRead(read)) return plan.stop.aborted ? 0 : read.exitCode;
    if (!typia.is<EventPageBody>(read.body)) {
      plan.stderr.write('provd: unexpected answer from the daemon (not a page of events)\n');
      return unreachableExitCode;
    }
    for (const event of read.body.events) plan.print(event);
    query.set('cursor', read.body.has_more ? read.body.next_cursor! : read.body.resume_cursor);
    if (read.body.has_more) continue;
    // a stop while waiting ends the wait at once
    await sleep(followIntervalMs, undefined, { signal: plan.stop }).catch(() => undefined);
  }
  return 0;
}
