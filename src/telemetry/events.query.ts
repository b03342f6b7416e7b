/** GET /v1/telemetry/events in the store actor: one keyset page of a run's events, serialized here. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { typeCode } from './codes.js';
import { decodeCursor, encodeCursor, filterDigest } from './cursor.js';
import type { EventType } from './event.js';
import { eventJson, eventJsonColumns, type EventJsonRow } from './event-json.js';
import { requireRun } from './run-exists.js';

/** Validated parameters of one page request. */
export interface EventsParams {
  run: string;
  type: EventType | null;
  limit: number;
  cursor: string | null;
}

/** The `provenance.telemetry_events/v1` body for one page. */
export async function listEvents(
  connection: DuckDBConnection,
  params: EventsParams,
  formatVersion: number,
): Promise<string> {
  await requireRun(connection, params.run);
  const digest = filterDigest(['events', params.run, params.type]);
  const after = params.cursor === null ? -1n : decodeCursor(params.cursor, formatVersion, digest, 1)[0]!;
  const typeFilter = params.type === null ? '' : ` AND type = ${typeCode(params.type)}`;
  const reader = await connection.runAndReadAll(
    `SELECT seq, ${eventJsonColumns} FROM events WHERE run_id = $1 AND seq > $2${typeFilter} ORDER BY seq LIMIT $3`,
    [params.run, after, params.limit + 1],
  );
  const rows = reader.getRowObjectsJS() as unknown as (EventJsonRow & { seq: bigint })[];
  const hasMore = rows.length > params.limit;
  const page = hasMore ? rows.slice(0, params.limit) : rows;
  const last = page[page.length - 1];
  const nextCursor =
    hasMore && last !== undefined ? JSON.stringify(encodeCursor(formatVersion, digest, [last.seq])) : 'null';
  return (
    `{"schema_version":"provenance.telemetry_events/v1","run_id":${JSON.stringify(params.run)},` +
    `"type":${JSON.stringify(params.type)},"limit":${params.limit},"count":${page.length},` +
    `"has_more":${hasMore},"next_cursor":${nextCursor},"events":[${page.map(eventJson).join(',')}]}`
  );
}
