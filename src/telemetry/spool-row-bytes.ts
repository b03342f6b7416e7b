import type { ParsedEvent } from '../model/event.js';

/**
 * A spooled row's size estimate, in JS, from the UTF-16 length of its attrs JSON; must match
 * `rowBytes` in spool.sql.ts (ASCII text: length = bytes).
 */
export function estimateRowBytes(event: ParsedEvent, attrsLength: number): number {
  return (
    attrsLength +
    event.time.length +
    (event.comm?.length ?? 0) +
    (event.cgroupId?.length ?? 0) +
    (event.containerId?.length ?? 0) +
    96
  );
}
