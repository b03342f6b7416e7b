/**
 * Tetragon's reports of its own loss: `process_throttle` (a cgroup's events throttled from
 * THROTTLE_START to THROTTLE_STOP) and `rate_limit_info` (process events dropped by the rate limit).
 * They become `capture_loss` events, which the store also records as coverage gaps (reported-gaps.sql.ts).
 */
import type { EventType } from '../model/event.js';
import { readCountOrDecimal, readString, wrongType } from './field-value.js';
import { rejectWrongType, type LineRejection } from './line-rejection.js';

const throttleStates: Readonly<Record<string, string>> = {
  THROTTLE_START: 'throttle_start',
  THROTTLE_STOP: 'throttle_stop',
};

/** Fills attrs for an event without a process; `capture_loss` for loss reports, else `generic`. */
export function readTetragonLoss(
  kind: string,
  body: Record<string, unknown>,
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  if (kind === 'process_throttle') {
    const state = readString(body.type);
    if (state === wrongType) return rejectWrongType('process_throttle.type', 'a string', body.type);
    const cgroup = readString(body.cgroup);
    if (cgroup === wrongType) return rejectWrongType('process_throttle.cgroup', 'a string', body.cgroup);
    attrs.loss = throttleStates[state ?? ''] ?? 'throttle_unknown';
    if (state !== null) attrs.throttle_type = state;
    if (cgroup !== null) attrs.cgroup = cgroup;
    return 'capture_loss';
  }
  if (kind === 'rate_limit_info') {
    const dropped = readCountOrDecimal(body.number_of_dropped_process_events ?? 0);
    if (dropped === wrongType) {
      const value = body.number_of_dropped_process_events;
      return rejectWrongType('rate_limit_info.number_of_dropped_process_events', 'a count', value);
    }
    attrs.loss = 'rate_limit';
    attrs.lost_events = dropped;
    return 'capture_loss';
  }
  keepWhole(kind, body, attrs);
  return 'generic';
}

/** A kind provd has no type for: its name and every field of its body but the process objects. */
export function keepWhole(kind: string, body: Record<string, unknown>, attrs: Record<string, unknown>): void {
  attrs.kind = kind;
  for (const key in body) {
    if (key !== 'process' && key !== 'parent' && key !== 'ancestors') attrs[key] = body[key];
  }
}
