/** What a tool call comes to: the daemon's body, or an error with a code and message. */
import type { JsonObject } from '../shared/schema/json-object.js';

/** A tool's failure as every adapter reports it: the daemon's error code and message, or a local one. */
export interface ToolFailure {
  /** A wire code of the daemon (`run_not_found`, `invalid_argument`, ...) or PROVD_ERR_CLI_UNREACHABLE. */
  code: string;
  message: string;
  /** HTTP status of the daemon's answer; absent when no answer came or the input was refused locally. */
  status?: number;
}

/** The result of one tool call. */
export type ToolOutcome = { ok: true; body: JsonObject } | { ok: false; failure: ToolFailure };

/** The error body every adapter prints for a failure (the daemon's own shape, provenance.error/v1). */
export function failureBody(failure: ToolFailure): JsonObject {
  return {
    schema_version: 'provenance.error/v1',
    error: { code: failure.code, message: failure.message },
  };
}

/**
 * The failure a non-2xx answer means: the daemon's `error.code` and `message` when the body is an
 * error body; verify's 503 VerifyResult gives `unavailable` with its `error`; anything else names
 * the status.
 */
export function failureOfAnswer(status: number, body: unknown): ToolFailure {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const error = fields['error'];
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as Record<string, unknown>;
    if (typeof code === 'string' && typeof message === 'string') return { code, message, status };
  }
  if (fields['schema_version'] === 'provenance.verify/v1' && typeof error === 'string')
    return { code: 'unavailable', message: `verification could not complete: ${error}`, status };
  return { code: 'internal', message: `unexpected answer from the daemon (HTTP ${status})`, status };
}
