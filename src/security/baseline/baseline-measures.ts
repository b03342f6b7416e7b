/**
 * What a behaviour baseline measures, and how a deviation from it is judged: one list each, read
 * by the rollup that folds the measures in, the profile that learns them and the deviations query.
 */
import type { Severity } from '../policy/policy.js';

/**
 * The measures that are sets of values. A measure's position is its stored code
 * (run_behaviour.measure): append only, never reorder.
 */
export const setMeasures = ['binary', 'read_prefix', 'write_prefix', 'destination', 'dns_name'] as const;
export type SetMeasure = (typeof setMeasures)[number];

/** The code of a set measure (run_behaviour.measure). */
export const measureCode = (measure: SetMeasure): number => setMeasures.indexOf(measure);

/** The code that sorts rate deviations after every set measure's. */
export const rateCode = setMeasures.length;

/** How many directories of the directory holding a path make its prefix (`/root/.ssh/id_rsa`: `/root/.ssh`). */
export const pathDepth = 2;

/** Most values a profile keeps per measure, the most common first; it says when it cut a set. */
export const maxProfileValues = 1000;

/** Most of a baseline's values a deviation shows as what was expected, the most common first. */
export const maxExpectedShown = 10;

/** Most event ids a deviation names as its basis, the first by position. */
export const maxBasisEvents = 5;

/**
 * A run deviates in rate when its busiest window of a type holds more than
 * max(rateFactor × peak, peak + rateSlack) events, where peak is the busiest window of that type in
 * any learned run: small counts do not deviate by a few events.
 */
export const rateFactor = 2;
export const rateSlack = 10;

/** The threshold a rate is measured against, from the learned peak and the factor and slack learned with it. */
export const rateThreshold = (peak: number, rule: { factor: number; slack: number }): number =>
  Math.max(rule.factor * peak, peak + rule.slack);

/** A set deviation's severity when the policy flagged none of its events (else `high`). */
export const setSeverity: Readonly<Record<SetMeasure, Severity>> = {
  binary: 'medium',
  read_prefix: 'low',
  write_prefix: 'medium',
  destination: 'medium',
  dns_name: 'low',
};

/** A rate deviation's severity: `medium` for a type no learned run had, else this. */
export const rateSeverity: Severity = 'low';
