/** Sums of EventCounts: what the causality tree adds up and what it reports as cut. */
import type { EventType } from '../../model/event.js';
import type { EventCounts } from './timeline-causality.js';

/** No events. */
export function noEvents(): EventCounts {
  return { total: 0, by_type: {} };
}

/** Adds `count` events of `type` into `into`. */
export function addEvents(into: EventCounts, type: EventType, count: number): void {
  into.total += count;
  into.by_type[type] = (into.by_type[type] ?? 0) + count;
}

/** Adds every count of `from` into `into`. */
export function addCounts(into: EventCounts, from: EventCounts): void {
  for (const [type, count] of Object.entries(from.by_type) as [EventType, number][])
    addEvents(into, type, count);
}

/** `all` less `part` (a subset of it), types left with nothing removed. */
export function subtractCounts(all: EventCounts, part: EventCounts): EventCounts {
  const rest = noEvents();
  for (const [type, count] of Object.entries(all.by_type) as [EventType, number][]) {
    const left = count - (part.by_type[type] ?? 0);
    if (left > 0) addEvents(rest, type, left);
  }
  return rest;
}
