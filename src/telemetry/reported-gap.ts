/**
 * What a capture_loss event reports as a coverage gap, and what it counts without a gap. Pure: the
 * normalize workers call it per event, without loading DuckDB (reported-gaps.sql.ts records them).
 */
import type { ParsedEvent } from '../model/event.js';

/** Gap kinds by the `loss` attribute of a capture_loss event. */
const gapKinds: Readonly<Record<string, string>> = {
  throttle_start: 'producer_throttle',
  throttle_stop: 'producer_throttle',
  throttle_unknown: 'producer_throttle',
  rate_limit: 'producer_rate_limit',
  syscall_drop: 'producer_drop',
  // provd's own sensor (src/sensor/loss-records.ts)
  sensor_ring_full: 'sensor_ring_full',
  sensor_pending_full: 'sensor_pending_full',
  sensor_handoff: 'sensor_handoff',
  sensor_backpressure: 'sensor_backpressure',
  sensor_commit_failed: 'sensor_commit_failed',
  sensor_malformed: 'sensor_malformed',
  sensor_missed: 'sensor_missed',
  sensor_tls_evicted: 'sensor_tls_evicted',
  sensor_tls_uncaptured: 'sensor_tls_uncaptured',
  sensor_tls_unsupported: 'sensor_tls_unsupported',
  sensor_tls_over_budget: 'sensor_tls_over_budget',
};

/** One reported loss, as the worker hands it to the store. */
export interface ReportedGap {
  /** The id of the capture_loss event; the gap's id derives from it. */
  eventId: string;
  source: string;
  kind: string;
  /** `open` starts a throttling window, `close` ends one, `point` is loss at one instant. */
  span: 'open' | 'close' | 'point';
  timeNs: bigint;
  lostEvents: number | null;
  /** The throttled cgroup, when the report names one. */
  cgroup: string;
}

/**
 * Losses that lose nothing: records the sensor's capture filter left out on purpose, records it
 * kept but cut at its limits (an argv or path too long), and TLS plaintext it captured but could
 * not read as HTTP (another protocol inside TLS). Each is counted (producer counters `filtered`,
 * `truncated`, `tls_unparsed_messages`: see notLossCounts), none is a gap: a gap degrades health,
 * and these happen on every ordinary host.
 */
const notLoss: ReadonlySet<string> = new Set(['sensor_filtered', 'sensor_truncated', 'sensor_tls_unparsed']);

/**
 * The producer counters a capture_loss event that lost nothing adds to, with how much. A
 * `sensor_tls_unparsed` report stored before it was told apart from loss says `lost_events`.
 */
export function notLossCounts(attrs: Readonly<Record<string, unknown>>): [counter: string, value: number][] {
  const counts: [string, number][] = [];
  const { filtered_events: filtered, truncated_events: truncated } = attrs;
  if (typeof filtered === 'number') counts.push(['filtered', filtered]);
  if (typeof truncated === 'number') counts.push(['truncated', truncated]);
  if (attrs['loss'] === 'sensor_tls_unparsed') {
    const unparsed = attrs['unparsed_tls_messages'] ?? attrs['lost_events'] ?? 1;
    if (typeof unparsed === 'number') counts.push(['tls_unparsed_messages', unparsed]);
  }
  return counts;
}

/** The gap a capture_loss event reports; undefined for any other event, and for losses of nothing. */
export function reportedGap(event: ParsedEvent, eventId: string): ReportedGap | undefined {
  if (event.type !== 'capture_loss') return undefined;
  const loss = typeof event.attrs.loss === 'string' ? event.attrs.loss : 'unknown';
  if (notLoss.has(loss)) return undefined;
  const lost = event.attrs.lost_events;
  return {
    eventId,
    source: event.source,
    kind: gapKinds[loss] ?? 'producer_loss',
    span: loss === 'throttle_start' ? 'open' : loss === 'throttle_stop' ? 'close' : 'point',
    timeNs: event.timeNs,
    lostEvents: typeof lost === 'number' ? lost : null,
    cgroup: typeof event.attrs.cgroup === 'string' ? event.attrs.cgroup : '',
  };
}
