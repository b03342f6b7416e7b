/** GET /v1/telemetry/windows in the store actor: a run's 10 s or 60 s windows, keyset-paged. */
import type { StoreConnection } from '../store/store-connection.js';
import type { Count, DateTimeText } from '../shared/schema/wire-types.js';
import { typeCode, typeName } from '../model/codes.js';
import { type CursorToken } from '../model/cursor.js';
import type { EventType } from '../model/event.js';
import type { PageLimit } from '../model/paging.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { WindowLength } from './window-facts.js';
import { join, readRows, sql, type Statement } from '../store/sql.js';
import { keysetPage } from '../store/keyset-page.js';
import { asJsonText, type JsonText } from '../store/json-text.js';

/** Validated parameters of a windows request; `from`/`to` select windows that overlap [from, to]. */
export interface WindowsParams {
  run: string;
  window: WindowLength;
  type: EventType | null;
  fromNs: bigint | null;
  toNs: bigint | null;
  limit: number;
  cursor: string | null;
}

/** One page of a run's windows (`provenance.telemetry_event_windows/v1`). */
// listWindows below writes this as JSON text by hand: change the two together
export interface TelemetryEventWindows {
  schema_version: 'provenance.telemetry_event_windows/v1';
  run_id: string;
  /** Window length in seconds. */
  window_s: WindowLength;
  /** The type filter, or null for every type. */
  type: EventType | null;
  from: DateTimeText | null;
  to: DateTimeText | null;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  /** The next page's cursor, or null on the last page. */
  next_cursor: CursorToken | null;
  windows: EventWindow[];
}

/** The events of one type in one window [start, end). */
export interface EventWindow {
  start: DateTimeText;
  end: DateTimeText;
  type: EventType;
  events: Count;
  /** Events whose evidence level is kernel_correlated. */
  correlated: Count;
  /** Events the default policy would not simply allow. */
  risky: Count;
  /** Bytes the events moved, where their attrs say. */
  bytes: Count;
}

interface WindowRow {
  bucket_ns: bigint;
  type: number;
  events: bigint;
  correlated: bigint;
  risky: bigint;
  bytes: bigint;
}

/** The TelemetryEventWindows body of one page, as JSON text. */
export async function listWindows(
  connection: StoreConnection,
  params: WindowsParams,
  formatVersion: number,
): Promise<JsonText<TelemetryEventWindows>> {
  const width = BigInt(params.window) * 1_000_000_000n;
  const opened = await keysetPage(
    connection,
    params,
    formatVersion,
    ['windows', params.run, params.window, params.type, String(params.fromNs), String(params.toNs)],
    2,
  );
  const after = opened.afterIntegers();
  // a window [bucket, bucket + width) overlaps [from, to] when it ends after `from` and starts by `to`
  const conditions: Statement[] = [sql`run_id = ${params.run}`, sql`window_s = ${params.window}`];
  if (params.type !== null) conditions.push(sql`type = ${typeCode(params.type)}`);
  if (params.fromNs !== null) conditions.push(sql`bucket_ns + ${width} > ${params.fromNs}`);
  if (params.toNs !== null) conditions.push(sql`bucket_ns <= ${params.toNs}`);
  if (after !== null) conditions.push(sql`(bucket_ns, type) > (${after[0]!}, ${after[1]!})`);
  const rows = await readRows<WindowRow>(
    connection,
    sql`SELECT bucket_ns, type, events, correlated, risky, bytes FROM windows WHERE ${join(conditions, ' AND ')}
        ORDER BY bucket_ns, type LIMIT ${params.limit + 1}`,
  );
  const hasMore = rows.length > params.limit;
  const page = hasMore ? rows.slice(0, params.limit) : rows;
  const last = page[page.length - 1];
  const next = hasMore && last !== undefined ? opened.next([last.bucket_ns, last.type]) : null;
  const windows = page.map(
    (row) =>
      `{"start":"${formatRfc3339Nanos(row.bucket_ns)}","end":"${formatRfc3339Nanos(row.bucket_ns + width)}",` +
      `"type":"${typeName(row.type)}","events":${row.events},"correlated":${row.correlated},` +
      `"risky":${row.risky},"bytes":${row.bytes}}`,
  );
  return asJsonText<TelemetryEventWindows>(
    `{"schema_version":"provenance.telemetry_event_windows/v1","run_id":${JSON.stringify(params.run)},` +
      `"window_s":${params.window},"type":${JSON.stringify(params.type)},` +
      `"from":${params.fromNs === null ? 'null' : `"${formatRfc3339Nanos(params.fromNs)}"`},` +
      `"to":${params.toNs === null ? 'null' : `"${formatRfc3339Nanos(params.toNs)}"`},"limit":${params.limit},` +
      `"count":${page.length},"has_more":${hasMore},"next_cursor":${JSON.stringify(next)},"windows":[${windows.join(',')}]}`,
  );
}
