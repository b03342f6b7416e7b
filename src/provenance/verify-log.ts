/**
 * Which verify outcomes are worth a write: GET /v1/graph/verify keeps its outcome for the summary's
 * `last_verify`, but a client asking in a loop must not turn reads into a stream of commits. The same
 * outcome for the same run is written again only after `minGapMs`.
 */
import type { VerifyResult } from './verify-result.js';

const minGapMs = 1000;
/** Runs remembered at most; past it, entries older than minGapMs are forgotten (they would be written anyway). */
const maxRemembered = 4096;

export class VerifyLog {
  private readonly kept = new Map<string, { outcome: string; atMs: number }>();

  /** True when `result` should be written: a new outcome for its run, or the last write is older than minGapMs. */
  due(result: VerifyResult, nowMs: number = performance.now()): boolean {
    const outcome = `${result.status}/${result.error_count}/${result.warning_count}`;
    const last = this.kept.get(result.run_id);
    if (last !== undefined && last.outcome === outcome && nowMs - last.atMs < minGapMs) return false;
    if (this.kept.size >= maxRemembered) this.forgetOlderThan(nowMs - minGapMs);
    this.kept.set(result.run_id, { outcome, atMs: nowMs });
    return true;
  }

  private forgetOlderThan(cutoffMs: number): void {
    for (const [run, entry] of this.kept) if (entry.atMs < cutoffMs) this.kept.delete(run);
  }
}
