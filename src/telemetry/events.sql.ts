/** GET /v1/telemetry/events in the store actor: one keyset page of a run's events, serialized here. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Count } from '../shared/schema/wire-types.js';
import { typeCode } from '../model/codes.js';
import { type CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import { eventJson, eventJsonColumns, type EventJsonRow, type TelemetryEvent } from './event-json.js';
import type { PageLimit } from '../model/paging.js';
import { probePositions } from '../store/seq-probe.sql.js';
import { raw, readRows, sql } from '../store/sql.js';
import { keysetPage } from '../store/keyset-page.js';
import { asJsonText, type JsonText } from '../store/json-text.js';

/** Validated parameters of one page request. */
export interface EventsParams {
  run: string;
  type: EventType | null;
  limit: number;
  cursor: string | null;
}

/** One page of a run's events (`provenance.telemetry_events/v1`). */
// listEvents below writes this as JSON text by hand: change the two together
export interface TelemetryEvents {
  schema_version: 'provenance.telemetry_events/v1';
  run_id: string;
  /** The type filter, or null for every type. */
  type: EventType | null;
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

/**
 * The TelemetryEvents body of one page, as JSON text. `endSeq` is the next position the store
 * will hand out: nothing is stored at or beyond it.
 */
export async function listEvents(
  connection: DuckDBConnection,
  params: EventsParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<JsonText<TelemetryEvents>> {
  const opened = await keysetPage(connection, params, formatVersion, ['events', params.run, params.type], 1);
  const after = opened.afterInteger(-1n);
  const typeFilter = params.type === null ? sql`` : sql` AND type = ${typeCode(params.type)}`;
  const ofRun = sql`run_id = ${params.run}${typeFilter}`;
  const positions = await probePositions(connection, ofRun, after, params.limit + 1, endSeq);
  const hasMore = positions.length > params.limit;
  const pageEnd = positions[Math.min(positions.length, params.limit) - 1];
  // the page is every row of the filter from its first position to its last: positions only grow
  // (an event joining a run later gets a new one past endSeq), so this range holds the same rows
  const page =
    pageEnd === undefined
      ? []
      : await readRows<EventJsonRow & { seq: bigint }>(
          connection,
          sql`SELECT seq, ${raw(eventJsonColumns)} FROM events
              WHERE ${ofRun} AND seq BETWEEN ${positions[0]!} AND ${pageEnd} ORDER BY seq`,
        );
  const last = page[page.length - 1];
  const nextCursor = hasMore && last !== undefined ? JSON.stringify(opened.next([last.seq])) : 'null';
  const resumeCursor = JSON.stringify(opened.next([last?.seq ?? after]));
  return asJsonText<TelemetryEvents>(
    `{"schema_version":"provenance.telemetry_events/v1","run_id":${JSON.stringify(params.run)},` +
      `"type":${JSON.stringify(params.type)},"limit":${params.limit},"count":${page.length},` +
      `"has_more":${hasMore},"next_cursor":${nextCursor},"resume_cursor":${resumeCursor},"events":[${page.map(eventJson).join(',')}]}`,
  );
}
