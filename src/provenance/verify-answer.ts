/**
 * The answer of a verify endpoint (a run's, the host's): the store's VerifyResult at 200, or, when
 * the store cannot complete the check, still a VerifyResult: `unavailable` with `error`, at 503.
 */
import { isUnavailable, ProvdError } from '../shared/errors.js';
import { jsonReply, type HttpReply } from '../shared/http/http-reply.js';
import type { VerifyResult } from './verify-result.js';

/** How long one verification may take before it is answered `unavailable`. */
export const verifyDeadlineMs = 60_000;

/** Runs `verify` for `runId` and answers it, an unavailable store included. */
export async function verifyAnswer(
  runId: string,
  verify: () => Promise<HttpReply['body']>,
): Promise<HttpReply> {
  try {
    return { status: 200, body: await verify() };
  } catch (error) {
    if (!(error instanceof ProvdError) || !isUnavailable(error.code)) throw error;
    const result: VerifyResult = {
      schema_version: 'provenance.verify/v1',
      run_id: runId,
      status: 'unavailable',
      issue_count: 0,
      error_count: 0,
      warning_count: 0,
      error: `${error.code}: ${error.message}`,
      issues: [],
    };
    return { ...jsonReply(503, result), headers: { 'retry-after': '5' } };
  }
}
