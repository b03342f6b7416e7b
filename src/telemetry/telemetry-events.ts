/**
 * The answer of GET /v1/telemetry/events (`provenance.telemetry_events/v1`), as the CLI reads it and
 * the store writes it (events.sql.ts), and the page fields every page of events shares: the wire
 * contract alone, with no store code.
 */
import type { CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import type { PageLimit } from '../model/paging.js';
import type { Count } from '../shared/schema/wire-types.js';
import type { TelemetryEvent } from './event-json.js';

/** One page of a run's events (`provenance.telemetry_events/v1`). */
// listEvents and readEventPage (events.sql.ts) write this as JSON text by hand: change them together
export interface TelemetryEvents extends EventPageBody {
  schema_version: 'provenance.telemetry_events/v1';
  run_id: string;
  /** The type filter, or null for every type. */
  type: EventType | null;
}

/** What every page of events says beside its own filters (a run's, the host's). */
export interface EventPageBody {
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  /** The next page's cursor, or null on the last page. */
  next_cursor: CursorToken | null;
  /**
   * Where to resume once more events arrive: the position after this page's last event (after the
   * asked cursor's when the page is empty). Unlike next_cursor it is never null, so a follower
   * (`provd events --follow`) polls with it. Positions are store order, so an event committed later
   * with an earlier capture time still comes after it.
   */
  resume_cursor: CursorToken;
  events: TelemetryEvent[];
}
