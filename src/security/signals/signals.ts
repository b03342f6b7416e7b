/**
 * The answer of GET /v1/signals (`provenance.signals/v1`), as the CLI reads it and the store writes
 * it (read-signals.ts): the wire contract alone, with no store code; each group of signals is in its
 * own module (behaviour-signals.ts, cost-signals.ts, quality-signals.ts, security-signals.ts).
 */
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import type { BehaviourSignals } from './behaviour-signals.js';
import type { CostSignals } from './cost-signals.js';
import type { QualitySignals } from './quality-signals.js';
import type { SecuritySignals } from './security-signals.js';
import type { SignalBounds } from './signal-basis.js';

/** The signals of one run (`provenance.signals/v1`). */
export interface Signals {
  schema_version: 'provenance.signals/v1';
  run_id: string;
  span: SignalSpan;
  behaviour: BehaviourSignals;
  cost: CostSignals;
  quality: QualitySignals;
  security: SecuritySignals;
  /** How much of each list the answer shows. */
  bounds: SignalBounds;
}

/** Capture instants of the run's first and last events (null without events), and the seconds between. */
export interface SignalSpan {
  first_event: DateTimeText | null;
  last_event: DateTimeText | null;
  seconds: number;
}
