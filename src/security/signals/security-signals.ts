/**
 * The security signals of GET /v1/signals: a run's risks by severity, decision and rule, and its
 * coverage gaps, as the CLI reads them and the store writes them (security-signals.sql.ts): the wire
 * contract alone, with no store code.
 */
import type { Count } from '../../shared/schema/wire-types.js';
import type { Decision, Severity } from '../policy/policy.js';
import type { SignalBasis } from './signal-basis.js';

/** The run's risks and the capture it may have lost. */
export interface SecuritySignals {
  risks: RiskSignals;
  coverage: CoverageSignals;
}

/** Risks: the policy's decisions on the run's events, and the gate's on its agent's tool calls, that were not a plain allow. */
export interface RiskSignals {
  total: Count;
  /** The most severe first; a severity without risks is absent. */
  by_severity: { severity: Severity; risks: Count; first_event_id: string }[];
  /** `kill` first; `allow` counts the risks a detect-only rule flagged. */
  by_decision: { decision: Decision; risks: Count; first_event_id: string }[];
  /** The most frequent first, at most `bounds.list_items`. */
  by_rule: { rule_id: string; risks: Count; first_event_id: string }[];
  basis: SignalBasis;
}

/** Coverage gaps: capture that provd knows was lost. */
export interface CoverageSignals {
  /** Gaps recorded for this run. */
  run: GapCounts;
  /** Gaps tied to no run whose interval overlaps the run's span: loss it may have suffered, the store cannot tell. */
  unattributed_in_span: GapCounts;
}

/** Gaps of one scope. */
export interface GapCounts {
  gaps: Count;
  /** Events the gaps say were lost. */
  lost_events: Count;
  /** Gaps that do not say how many events they lost. */
  unknown_loss: Count;
  /** By kind (sensor_ring_full, producer_drop, spool_overflow, ...), the most gaps first, at most `bounds.list_items`. */
  by_kind: { kind: string; gaps: Count; lost_events: Count }[];
  /** The gaps' ids (coverage_gaps rows, not events), the earliest first, at most `bounds.basis_ids`. */
  gap_ids: string[];
  basis: SignalBasis;
}
