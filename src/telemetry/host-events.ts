/**
 * The answer of GET /v1/telemetry/host-events (`provenance.host_events/v1`), as the CLI reads it
 * and the store writes it (host-events.sql.ts): the wire contract alone, with no store code.
 */
import type { EventType } from '../model/event.js';
import type { DateTimeText } from '../shared/schema/wire-types.js';
import type { EventPageBody } from './telemetry-events.js';

/** One page of host events (`provenance.host_events/v1`). */
// listHostEvents (host-events.sql.ts) writes this as JSON text by hand: change the two together
export interface HostEvents extends EventPageBody {
  schema_version: 'provenance.host_events/v1';
  /** The capture times listed, as instants: from `since` (inclusive; null: the first) to `until` (exclusive; null: open). */
  since: DateTimeText | null;
  until: DateTimeText | null;
  /** The type filter, or null for every type. */
  type: EventType | null;
}
