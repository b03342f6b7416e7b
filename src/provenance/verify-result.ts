/** The answer of GET /v1/graph/verify (spec: VerifyResult). */
import type { Count } from '../shared/schema/wire-types.js';
import type { VerifyIssues } from './verify-issues.js';

/** The outcome of verifying a run's evidence chain: object hashes, parent relations, policy to signal. */
export interface VerifyResult {
  schema_version: 'provenance.verify/v1';
  run_id: string;
  /** ok or failed when verification completed (HTTP 200); unavailable when it could not (HTTP 503). */
  status: 'ok' | 'failed' | 'unavailable';
  /** Counts only checks that completed. */
  issue_count: Count;
  error_count: Count;
  warning_count: Count;
  /** The run error kept when verification could not complete. */
  error?: string;
  issues: VerifyIssue[] | null;
}

/** One problem verification found. */
export interface VerifyIssue {
  severity: 'error' | 'warning';
  kind: string;
  id: string;
  message: string;
}

/** The result of a verification that completed, of `runId` (a run, or the host's scope), with what it found. */
export function verifyResultOf(runId: string, issues: VerifyIssues): VerifyResult {
  return {
    schema_version: 'provenance.verify/v1',
    run_id: runId,
    status: issues.errors > 0 ? 'failed' : 'ok',
    issue_count: issues.errors + issues.warnings,
    error_count: issues.errors,
    warning_count: issues.warnings,
    issues: issues.listed,
  };
}
