/**
 * Lines that carry no capture time (some exports omit it: sample Falco and LoongCollector lines, a
 * Tetragon exec) are kept, not dropped: the parsers leave `missingTime`, normalize times them at the
 * ingest instant and marks them `attrs.time_source = "ingested"`, and producer counters count them
 * as `no_capture_time`, so nobody mistakes the stamp for a capture time.
 */
import type { ParsedEvent } from '../model/event.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';

/** What a parser leaves in `time` (with `timeNs` 0n) when the line has no capture time. */
export const missingTime = '';

/** The attrs key and value that mark a stamped time. */
export const timeSourceKey = 'time_source';
export const ingestedTimeSource = 'ingested';

/** Times an event that has no capture time at the ingest instant, and marks it. */
export function stampReceived(event: ParsedEvent, receivedNs: bigint): void {
  event.time = formatRfc3339Nanos(receivedNs);
  event.timeNs = receivedNs;
  event.attrs[timeSourceKey] = ingestedTimeSource;
}
