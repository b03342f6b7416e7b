/**
 * `provd health --wait SECONDS [--pid PID]`: asks `GET /v1/health` until the daemon is ready and
 * takes the CLI's token, for at most SECONDS, and gives up at once when process PID (the daemon, as
 * the shell's `$!` names it) has ended. The token is tried too because a ready daemon that refuses it
 * is not the one the caller started (an earlier one still on the port), and every next command
 * would fail against it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import typia from 'typia';
import type { DaemonHealth } from '../daemon/daemon-health.js';
import { ProvdError } from '../shared/errors.js';
import { sendDaemon } from './daemon-client.js';
import { daemonErrorOf } from './daemon-error.js';
import { processEnded } from './process-state.js';

const everyMs = 250;
/** Above the readiness check's own 2-second deadline. */
const askTimeoutMs = 5_000;
/** A small read behind the token: auth comes before it, so a 401 here is the token's. */
const tokenProbePath = '/v1/graph/keys';

/** What one ask found. */
export type DaemonState =
  | { kind: 'ready'; health: DaemonHealth }
  | { kind: 'not_ready'; health: DaemonHealth }
  | { kind: 'token_refused'; reason: string }
  | { kind: 'unreachable'; reason: string };

/** How the wait ended (ready, out of time, or the daemon's process ended first), and the last state seen. */
export interface WaitOutcome {
  end: 'ready' | 'timeout' | 'ended';
  last: DaemonState;
}

export interface WaitOptions {
  seconds: number;
  /** The daemon's process: the wait ends when it has, ready or not. */
  pid?: number;
  /** Called once, when the first ask did not find the daemon ready. */
  onWaiting?: () => void;
}

/** Asks every 250 ms until the daemon is ready, the time is up, or its process has ended. */
export async function waitForDaemon(baseUrl: string, options: WaitOptions): Promise<WaitOutcome> {
  const { seconds, pid, onWaiting } = options;
  const deadline = performance.now() + seconds * 1000;
  const ended = (): boolean => pid !== undefined && processEnded(pid);
  for (let asks = 0; ; asks++) {
    const last = await askDaemon(
      baseUrl,
      Math.max(1000, Math.min(askTimeoutMs, deadline - performance.now())),
    );
    // a daemon that answers ready while PID has ended is another one
    if (ended()) return { end: 'ended', last };
    if (last.kind === 'ready') return { end: 'ready', last };
    const left = deadline - performance.now();
    if (left <= 0) return { end: 'timeout', last };
    if (asks === 0) onWaiting?.();
    await delay(Math.min(everyMs, left));
  }
}

/** One ask: the health, and when ready, whether the daemon takes the token the CLI sends. */
async function askDaemon(baseUrl: string, timeoutMs: number): Promise<DaemonState> {
  try {
    const answer = await sendDaemon(baseUrl, { method: 'GET', path: '/v1/health' }, timeoutMs);
    if (!typia.is<DaemonHealth>(answer.body) || (answer.status !== 200 && answer.status !== 503))
      return { kind: 'unreachable', reason: `unexpected answer from the daemon (HTTP ${answer.status})` };
    if (!answer.body.ready) return { kind: 'not_ready', health: answer.body };
    const probe = await sendDaemon(baseUrl, { method: 'GET', path: tokenProbePath }, timeoutMs);
    if (probe.status === 401)
      return { kind: 'token_refused', reason: daemonErrorOf(probe.body) ?? 'unauthorized (HTTP 401)' };
    return { kind: 'ready', health: answer.body };
  } catch (error) {
    if (!(error instanceof ProvdError)) throw error;
    return { kind: 'unreachable', reason: error.message };
  }
}
