/**
 * The capture loss a run's evidence is known to miss: the coverage gaps recorded for it, and the
 * host-wide gaps (tied to no run) whose interval meets its span. The summary and the attestation
 * both say it, in these words.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { readRows, sql } from '../store/sql.js';

/** The gaps of a run, and of the host during its span. */
export interface RunCoverage {
  run_gaps: number;
  host_gaps_in_span: number;
}

/** Counts `run`'s gaps, and the host's that meet [firstNs, lastNs] (none when the span is unknown). */
export async function runCoverage(
  connection: StoreConnection,
  run: string,
  firstNs: bigint | null,
  lastNs: bigint | null,
): Promise<RunCoverage> {
  const [gaps] = await readRows<{ run_gaps: bigint; host_gaps: bigint }>(
    connection,
    sql`SELECT count(*) FILTER (WHERE run_id = ${run}) AS run_gaps,
          count(*) FILTER (WHERE run_id IS NULL AND start_ns <= ${lastNs ?? -1n}
            AND end_ns >= ${firstNs ?? 0n}) AS host_gaps
        FROM coverage_gaps`,
  );
  return { run_gaps: Number(gaps!.run_gaps), host_gaps_in_span: Number(gaps!.host_gaps) };
}
