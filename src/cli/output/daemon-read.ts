/**
 * One GET to the daemon for a command that prints what it answers: the body when the status is
 * one the command expected, else a line on stderr saying why and the exit code to leave with.
 */
import type { Writable } from 'node:stream';
import { fetchDaemon } from '../daemon-client.js';
import { daemonErrorOf } from '../daemon-error.js';

/** Exit code when the daemon answered an error (`provenance.error/v1`: unknown run, bad token, ...). */
export const daemonErrorExitCode = 1;
/** Exit code when the daemon cannot be reached or answers something that is not its API. */
export const unreachableExitCode = 2;

/** The answer a command expected, or the exit code it leaves with (the reason already on stderr). */
export type DaemonRead = { status: number; body: unknown } | { exitCode: number };

/**
 * GETs `path`; resolves with the answer when its status is in `expected` (200 by default), else
 * writes `provd: code: message` and resolves with an exit code: `errorExitCode` for an error body,
 * unreachableExitCode otherwise. A 401 also says how the CLI sends a token (daemonErrorOf).
 */
export async function readDaemon(
  baseUrl: string,
  path: string,
  stderr: Writable,
  options: { expected?: readonly number[]; errorExitCode?: number } = {},
): Promise<DaemonRead> {
  const answer = await fetchDaemon(baseUrl, path, stderr);
  if (answer === undefined) return { exitCode: unreachableExitCode };
  if ((options.expected ?? [200]).includes(answer.status)) return answer;
  return { exitCode: refuseAnswer(answer, stderr, options.errorExitCode) };
}

/**
 * Writes why the daemon's answer is not the one expected: `provd: code: message` of an error body
 * (daemonErrorOf), else its HTTP status; returns the exit code, `errorExitCode` for an error body,
 * unreachableExitCode otherwise.
 */
export function refuseAnswer(
  answer: { status: number; body: unknown },
  stderr: Writable,
  errorExitCode = daemonErrorExitCode,
): number {
  const error = daemonErrorOf(answer.body);
  if (error === undefined) {
    stderr.write(`provd: unexpected answer from the daemon (HTTP ${answer.status})\n`);
    return unreachableExitCode;
  }
  stderr.write(`provd: ${error}\n`);
  return errorExitCode;
}

/** Whether `read` failed (and holds the exit code). */
export function isFailedRead(read: DaemonRead): read is { exitCode: number } {
  return 'exitCode' in read;
}
