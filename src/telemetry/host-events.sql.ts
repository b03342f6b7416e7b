/**
 * GET /v1/telemetry/host-events in the store actor: one keyset page of the host's events (those no
 * binding attributed to a run: `run_id IS NULL`, waiting in the spool or past it), captured in a
 * time range, in store order as a run's events are.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { typeCode } from '../model/codes.js';
import { integerPart } from '../model/cursor.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { EventType } from '../model/event.js';
import { keysetPage } from '../store/keyset-page.js';
import { asJsonText, type JsonText } from '../store/json-text.js';
import { sql } from '../store/sql.js';
import { readEventPage } from './events.sql.js';
import type { HostEvents } from './host-events.js';

/** Validated parameters of one page of host events. */
export interface HostEventsParams {
  /** `since` and `until` as the client wrote them: a cursor is bound to these words. */
  sinceText: string | null;
  untilText: string | null;
  /** The range they denote now, Unix ns (until exclusive; null: open); a cursor's range wins. */
  sinceNs: string | null;
  untilNs: string | null;
  type: EventType | null;
  limit: number;
  cursor: string | null;
}

/** A cursor's range part for an open end. */
const open = '-';

/**
 * The HostEvents body of one page, as JSON text. A cursor carries the range its first page
 * resolved, so `since=10m` names the same instants on every page of one listing (and a follower's).
 */
export async function listHostEvents(
  connection: StoreConnection,
  params: HostEventsParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<JsonText<HostEvents>> {
  const filterWords = ['host_events', params.sinceText, params.untilText, params.type];
  const opened = await keysetPage(
    connection,
    { run: null, cursor: params.cursor },
    formatVersion,
    filterWords,
    3,
  );
  const range = opened.after?.slice(1) ?? [params.sinceNs ?? open, params.untilNs ?? open];
  const [since, until] = range.map((part) => (part === open ? null : integerPart(part)));
  const filter = sql`run_id IS NULL${since == null ? sql`` : sql` AND time_ns >= ${since}`}${
    until == null ? sql`` : sql` AND time_ns < ${until}`
  }${params.type === null ? sql`` : sql` AND type = ${typeCode(params.type)}`}`;
  const page = await readEventPage(connection, filter, {
    after: opened.afterInteger(-1n),
    limit: params.limit,
    endSeq,
    cursorAt: (seq) => opened.next([seq, since ?? open, until ?? open]),
  });
  const instant = (ns: bigint | null | undefined) =>
    JSON.stringify(ns == null ? null : formatRfc3339Nanos(ns));
  return asJsonText<HostEvents>(
    `{"schema_version":"provenance.host_events/v1","since":${instant(since)},"until":${instant(until)},` +
      `"type":${JSON.stringify(params.type)},${page}}`,
  );
}
