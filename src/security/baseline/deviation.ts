/**
 * A deviation as the wire carries it (`provenance.security_deviations/v1`): what a run did outside
 * its baseline, measured against one version, with the events behind it. Built here from the rows
 * deviations.sql.ts selects.
 */
import type { Count, DateTimeText, Identifier } from '../../shared/schema/wire-types.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { CursorToken } from '../../model/cursor.js';
import type { EventType } from '../../model/event.js';
import type { PageLimit } from '../../model/paging.js';
import type { WindowLength } from '../../telemetry/window-facts.js';
import type { Severity } from '../policy/policy.js';
import type { BaselineVersion } from './baseline.js';
import {
  maxExpectedShown,
  maxProfileValues,
  rateThreshold,
  setMeasures,
  type SetMeasure,
} from './baseline-measures.js';
import type { BaselineProfile } from './baseline-profile.sql.js';

/** What a deviation measures: a set measure, or the rate of one event type (`rate:file_open`). */
export type DeviationMeasure = SetMeasure | `rate:${EventType}`;

/** What the baseline expected of a set measure: its most common values, and how many it has. */
export interface ExpectedValues {
  kind: 'values';
  /** At most 10 of the baseline's values, the most common first. */
  values: string[];
  /** How many values the baseline holds for the measure. */
  distinct: Count;
  /** True when the baseline's set was cut at learning: a value beyond its cut deviates too. */
  truncated: boolean;
}

/** What the baseline expected of a rate: its busiest window, and the threshold derived from it. */
export interface ExpectedRate {
  kind: 'rate';
  window_s: WindowLength;
  /** The most events of the type in one window of any learned run (0: none had the type). */
  peak: Count;
  /** More than this in one window deviates: max(factor × peak, peak + slack). */
  threshold: Count;
}

/** One deviation of a run from its baseline. */
export interface SecurityDeviation {
  measure: DeviationMeasure;
  /** `high` when the policy flagged one of its events; else by measure (see the README). */
  severity: Severity;
  /** One sentence saying what the run did that the baseline did not. */
  reason: string;
  /** The value the run showed (a binary, a path prefix, `ip:port`, a DNS name); for a rate, the most events in one window. */
  observed: string | Count;
  expected: ExpectedValues | ExpectedRate;
  baseline: { name: Identifier; version: BaselineVersion };
  /** The events behind it: how many, how many the policy flagged, and the first few by position. */
  basis: {
    events: Count;
    flagged_events: Count;
    /** At most 5 event ids, each one GET /v1/graph/explain?event=ID away. */
    event_ids: string[];
    /** For a rate, where its busiest window starts; null otherwise. */
    window_start: DateTimeText | null;
  };
}

/** The baseline a run was measured against, and how it was chosen. */
export interface DeviationBaseline {
  name: Identifier;
  version: BaselineVersion;
  profile_sha256: string;
  created_at: DateTimeText;
  /** `requested`: the request named it; `most_recent`: it named none, so the most recently learned one's name. */
  selection: 'requested' | 'most_recent';
  /** The run is one it was learned from. */
  learned_from_run: boolean;
}

/** One page of a run's deviations (`provenance.security_deviations/v1`), the most severe first. */
export interface SecurityDeviations {
  schema_version: 'provenance.security_deviations/v1';
  run_id: string;
  /** `compared`; `no_baseline` when no baseline is learned at all (baseline null, no deviations). */
  status: 'compared' | 'no_baseline';
  baseline: DeviationBaseline | null;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  deviations: SecurityDeviation[];
}

/** What deviations show of a version: per set measure its most common values, and its rates. */
export interface ExpectedSummary {
  sets: Record<SetMeasure, ExpectedValues>;
  rates: BaselineProfile['rates'];
}

/** What a version's deviations are measured against, and what their answers show of it. */
export interface Expectation extends ExpectedSummary {
  name: string;
  version: number;
  runs: string[];
  profile_sha256: string;
  created_ns: bigint;
}

/** The summary of a profile that deviations show, stored with the version when it is learned. */
export function summarizeProfile(profile: BaselineProfile): ExpectedSummary {
  const sets = Object.fromEntries(
    setMeasures.map((measure) => {
      const { values, distinct, truncated } = profile[measure];
      const shown = values.slice(0, maxExpectedShown).map((entry) => entry.value);
      return [measure, { kind: 'values', values: shown, distinct, truncated } satisfies ExpectedValues];
    }),
  ) as Record<SetMeasure, ExpectedValues>;
  return { sets, rates: profile.rates };
}

/** A deviation as the query selects it; rates carry their type in `value` and their window. */
export interface DeviationRow {
  rank: number;
  code: number;
  value: string;
  events: bigint;
  flagged: bigint;
  event_ids: string[];
  /** For a rate: the learned peak, and where the run's busiest window starts. */
  peak: bigint | null;
  at_ns: bigint | null;
}

const verbs: Readonly<Record<SetMeasure, string>> = {
  binary: 'executed',
  read_prefix: 'read under',
  write_prefix: 'wrote under',
  destination: 'connected to',
  dns_name: 'looked up',
};

/** The wire deviation of a row, measured against `expectation`; rows of rates carry their peak. */
export function deviationOf(
  row: DeviationRow,
  expectation: Expectation,
  severity: Severity,
): SecurityDeviation {
  const flagged = Number(row.flagged);
  const policy = flagged > 0 ? `; the policy flagged ${flagged} of its ${row.events} events` : '';
  const baseline = { name: expectation.name, version: expectation.version };
  const basis = {
    events: Number(row.events),
    flagged_events: flagged,
    event_ids: row.event_ids,
    window_start: row.at_ns === null ? null : formatRfc3339Nanos(row.at_ns),
  };
  const measure = setMeasures[row.code];
  if (measure === undefined) {
    const peak = Number(row.peak ?? 0n);
    const threshold = rateThreshold(peak, expectation.rates);
    const windowS = expectation.rates.window_s;
    return {
      measure: `rate:${row.value as EventType}`,
      severity,
      reason: `${row.events} ${row.value} events in one ${windowS} s window; the learned runs' busiest held ${peak}, the threshold is ${threshold}${policy}`,
      observed: basis.events,
      expected: { kind: 'rate', window_s: windowS, peak, threshold },
      baseline,
      basis,
    };
  }
  const expected = expectation.sets[measure];
  const none = expected.truncated
    ? `is not among the ${maxProfileValues} most common of the baseline's ${expected.distinct}`
    : 'no learned run of the baseline did';
  return {
    measure,
    severity,
    reason: `${verbs[measure]} ${row.value}, which ${none}${policy}`,
    observed: row.value,
    expected,
    baseline,
    basis,
  };
}
