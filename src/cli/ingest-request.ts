/** Sends one NDJSON chunk to the ingest endpoint until the daemon commits it or refuses it for good. */
import { setTimeout as sleep } from 'node:timers/promises';
import typia from 'typia';
import { ProvdError } from '../shared/errors.js';
import { postDaemon, type DaemonAnswer } from './daemon-client.js';
import { daemonErrorOf } from './daemon-error.js';
import type { NdjsonChunk } from './ndjson-chunker.js';

/** The ingest answer as the CLI reads it; codes stay plain strings so a newer daemon's codes pass. */
export interface IngestAnswer {
  accepted: number;
  rejected: number;
  pending: number;
  errors: { line: number; code: string; message: string }[];
  errors_truncated: boolean;
}

/** What became of a chunk: the daemon's counts (error lines already whole-input numbers), or why not. */
export type ChunkOutcome = { ok: true; answer: IngestAnswer } | { ok: false; reason: string };

/** Where and how to send, and when to stop trying. */
export interface ChunkTarget {
  baseUrl: string;
  format: string;
  /** Unique per upload: a chunk's Idempotency-Key is this and its index, the same on every resend. */
  keyPrefix: string;
  /** Aborted when another chunk failed: waits end early and no retry starts. */
  signal: AbortSignal;
}

/**
 * Attempts for a network error or a 503 before the chunk fails; 429s do not count. With the
 * backoff below they span about 7.5 s, enough to ride out a daemon restart. Resending is safe:
 * the daemon answers a chunk it already committed with its first answer.
 */
const maxAttempts = 5;
const firstBackoffMs = 500;
const defaultRetryAfterSeconds = 1;
const maxRetryAfterSeconds = 30;
// the daemon answers only after the commit, and waits up to 120 s for it
const idleTimeoutMs = 300_000;

/**
 * POSTs the chunk with its Idempotency-Key. A 429 is resent after `Retry-After` as often as it
 * comes (a chunk is never dropped); a network error or a 503 is retried `maxAttempts` times with
 * doubling backoff; any other answer (a 4xx, a 500: a bug a resend will not fix) fails at once.
 */
export async function sendChunk(target: ChunkTarget, chunk: NdjsonChunk): Promise<ChunkOutcome> {
  let failures = 0;
  while (!target.signal.aborted) {
    const step = await tryOnce(target, chunk);
    if ('outcome' in step) return step.outcome;
    if ('retryAfterMs' in step) {
      await wait(step.retryAfterMs, target.signal);
      continue;
    }
    if (++failures >= maxAttempts)
      return { ok: false, reason: `${step.problem} (after ${failures} attempts)` };
    await wait(firstBackoffMs * 2 ** (failures - 1), target.signal);
  }
  return { ok: false, reason: 'stopped after another chunk failed' };
}

/** One POST: a final outcome, a 429 to wait out, or a transient problem worth another attempt. */
async function tryOnce(
  target: ChunkTarget,
  chunk: NdjsonChunk,
): Promise<{ outcome: ChunkOutcome } | { retryAfterMs: number } | { problem: string }> {
  const path = `/v1/telemetry/ingest?format=${encodeURIComponent(target.format)}`;
  let answer: DaemonAnswer;
  try {
    answer = await postDaemon(target.baseUrl, path, chunk.bytes, {
      contentType: 'application/x-ndjson',
      idleTimeoutMs,
      headers: { 'idempotency-key': `${target.keyPrefix}-${chunk.index}` },
    });
  } catch (error) {
    // an answer over the CLI's cap is no answer a resend would change
    if (error instanceof ProvdError)
      return { outcome: { ok: false, reason: `${error.code}: ${error.message}` } };
    const reason = error instanceof Error ? error.message : String(error);
    return { problem: `PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at ${target.baseUrl}: ${reason}` };
  }
  if (answer.status === 200) {
    if (!typia.is<IngestAnswer>(answer.body)) return { outcome: { ok: false, reason: unexpected(answer) } };
    return { outcome: { ok: true, answer: renumber(answer.body, chunk.firstLine) } };
  }
  if (answer.status === 429) return { retryAfterMs: retryAfterMs(answer.headers['retry-after']) };
  const problem = daemonErrorOf(answer.body) ?? unexpected(answer);
  if (answer.status === 503) return { problem };
  return { outcome: { ok: false, reason: hint(problem, answer, chunk) } };
}

/** Moves the chunk's error lines from request-relative to whole-input numbers. */
function renumber(answer: IngestAnswer, firstLine: number): IngestAnswer {
  const errors = answer.errors.map((error) => ({ ...error, line: error.line + firstLine - 1 }));
  return { ...answer, errors };
}

/** `Retry-After` in seconds or as an HTTP date, defaulting to 1 s, capped at 30 s. */
export function retryAfterMs(header: string | undefined): number {
  let seconds = defaultRetryAfterSeconds;
  if (header !== undefined && /^\s*\d+\s*$/.test(header)) seconds = Number(header);
  else if (header !== undefined && !Number.isNaN(Date.parse(header)))
    seconds = Math.max(0, (Date.parse(header) - Date.now()) / 1000);
  return Math.min(seconds, maxRetryAfterSeconds) * 1000;
}

/** Sleeps, or less when the abort signal fires; the caller's loop then sees it aborted. */
/**
 * Tests only (README, fault injection): `PROVD_FAULT_CLI_WAIT_SCALE=0.05` makes every wait before a
 * resend 20 times shorter, so a test of giving up does not sit through the real backoff. Anything
 * but a number in (0, 1] leaves the waits as they are.
 */
const waitScale = ((text: string | undefined): number => {
  const scale = Number(text);
  return text !== undefined && scale > 0 && scale <= 1 ? scale : 1;
})(process.env['PROVD_FAULT_CLI_WAIT_SCALE']);

async function wait(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms * waitScale, undefined, { signal }).catch(() => undefined);
}

function unexpected(answer: DaemonAnswer): string {
  return `unexpected answer from the daemon (HTTP ${answer.status}); is --url a provd daemon?`;
}

/** A 413 is fixable from this side: say how. */
function hint(problem: string, answer: DaemonAnswer, chunk: NdjsonChunk): string {
  if (answer.status !== 413) return problem;
  if (chunk.lines > 1) return `${problem}; lower --chunk-bytes (now ${chunk.bytes.length} bytes per request)`;
  return `${problem}; line ${chunk.firstLine} alone is ${chunk.bytes.length} bytes`;
}
