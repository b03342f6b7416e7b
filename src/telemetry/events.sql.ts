/** GET /v1/telemetry/events in the store actor: one keyset page of a run's events, serialized here. */
import type { StoreConnection } from '../store/store-connection.js';
import { typeCode } from '../model/codes.js';
import { type CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import { eventJson, eventJsonColumns, type EventJsonRow } from './event-json.js';
import { probePositions } from '../store/seq-probe.sql.js';
import { raw, readRows, sql, type Statement } from '../store/sql.js';
import { keysetPage } from '../store/keyset-page.js';
import { asJsonText, type JsonText } from '../store/json-text.js';
import type { TelemetryEvents } from './telemetry-events.js';

/** Validated parameters of one page request. */
export interface EventsParams {
  run: string;
  type: EventType | null;
  limit: number;
  cursor: string | null;
}

/**
 * The TelemetryEvents body of one page, as JSON text. `endSeq` is the next position the store
 * will hand out: nothing is stored at or beyond it.
 */
export async function listEvents(
  connection: StoreConnection,
  params: EventsParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<JsonText<TelemetryEvents>> {
  const opened = await keysetPage(connection, params, formatVersion, ['events', params.run, params.type], 1);
  const typeFilter = params.type === null ? sql`` : sql` AND type = ${typeCode(params.type)}`;
  const page = await readEventPage(connection, sql`run_id = ${params.run}${typeFilter}`, {
    after: opened.afterInteger(-1n),
    limit: params.limit,
    endSeq,
    cursorAt: (seq) => opened.next([seq]),
  });
  return asJsonText<TelemetryEvents>(
    `{"schema_version":"provenance.telemetry_events/v1","run_id":${JSON.stringify(params.run)},` +
      `"type":${JSON.stringify(params.type)},${page}}`,
  );
}

/** Where a page of events starts, how long it is, and how a cursor names a position. */
export interface EventPageAsked {
  /** The position the page starts after (-1: the first page). */
  after: bigint;
  limit: number;
  endSeq: bigint;
  cursorAt(seq: bigint): CursorToken;
}

/**
 * The fields of EventPageBody (telemetry-events.ts), as JSON text without braces: the events `filter` (a condition on
 * `events`) selects after `asked.after`, in store order.
 */
export async function readEventPage(
  connection: StoreConnection,
  filter: Statement,
  asked: EventPageAsked,
): Promise<string> {
  const positions = await probePositions(connection, filter, asked.after, asked.limit + 1, asked.endSeq);
  const hasMore = positions.length > asked.limit;
  const pageEnd = positions[Math.min(positions.length, asked.limit) - 1];
  // the page is every row of the filter from its first position to its last: positions only grow
  // (an event joining a run later gets a new one past endSeq), so this range holds the same rows
  const page =
    pageEnd === undefined
      ? []
      : await readRows<EventJsonRow & { seq: bigint }>(
          connection,
          sql`SELECT seq, ${raw(eventJsonColumns)} FROM events
              WHERE ${filter} AND seq BETWEEN ${positions[0]!} AND ${pageEnd} ORDER BY seq`,
        );
  const last = page[page.length - 1];
  const nextCursor = hasMore && last !== undefined ? JSON.stringify(asked.cursorAt(last.seq)) : 'null';
  const resumeCursor = JSON.stringify(asked.cursorAt(last?.seq ?? asked.after));
  return (
    `"limit":${asked.limit},"count":${page.length},"has_more":${hasMore},"next_cursor":${nextCursor},` +
    `"resume_cursor":${resumeCursor},"events":[${page.map(eventJson).join(',')}]`
  );
}
