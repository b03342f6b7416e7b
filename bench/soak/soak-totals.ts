/** The total line of a soak run: every phase's counts added up, the highest RSS, one p99 over all. */
import { percentileMs, type PhaseFigures } from './phase-tally.js';

/** What the phases measured, for the total. */
export interface PhaseResults {
  figures: Record<string, PhaseFigures>;
  /** Every well-formed request's latency, all phases together. */
  latencies: number[];
}

export type TotalFigures = Omit<PhaseFigures, 'well_formed_p50_ms'>;

/** Adds the phases up. */
export function totalOf({ figures, latencies }: PhaseResults): TotalFigures {
  const phases = Object.values(figures);
  const sum = (pick: (f: PhaseFigures) => number): number => phases.reduce((total, f) => total + pick(f), 0);
  const statuses: Record<string, number> = {};
  for (const phase of phases)
    for (const [status, count] of Object.entries(phase.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  const peaks = phases.map((f) => f.rss_peak_bytes).filter((peak): peak is number => peak !== null);
  return {
    seconds: sum((f) => f.seconds),
    requests: sum((f) => f.requests),
    statuses,
    no_answer: sum((f) => f.no_answer),
    unexpected_5xx: sum((f) => f.unexpected_5xx),
    expected_503: sum((f) => f.expected_503),
    well_formed: sum((f) => f.well_formed),
    well_formed_late: sum((f) => f.well_formed_late),
    well_formed_p99_ms: percentileMs(latencies, 0.99),
    contract_mismatch: sum((f) => f.contract_mismatch),
    acknowledged: sum((f) => f.acknowledged),
    lost: sum((f) => f.lost),
    duplicated: sum((f) => f.duplicated),
    daemon_crashes: sum((f) => f.daemon_crashes),
    rss_peak_bytes: peaks.length === 0 ? null : Math.max(...peaks),
    failures: sum((f) => f.failures),
    notes: sum((f) => f.notes),
  };
}
