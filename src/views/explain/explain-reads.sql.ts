/** The reads explain's paths are made of: events and their sealing batches. */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql, join, raw, type Statement } from '../../store/sql.js';
import { evidenceName } from '../../model/codes.js';
import type { ExplainNode } from './explain-result.js';
import type { BatchPlaces, BatchPlace } from '../../telemetry/batch-places.sql.js';
import {
  eventJson,
  eventJsonColumns,
  type EventJsonRow,
  type TelemetryEvent,
} from '../../telemetry/event-json.js';

/** An event row with its keyset position. */
export type EventRow = EventJsonRow & { seq: bigint };

/** A row with the event_batch object that seals it (null: none). */
export type Sealed<Row> = Row & { sealed_by: string | null };

export const eventRowColumns = raw(`${eventJsonColumns}, seq`);

/**
 * The rows with the event_batch that seals each, looked up for all of them in one read, once a
 * path's rows are known (explain reads them on its side connection, beside the path's next read).
 * As a correlated subquery in a row's read, DuckDB joins it before the row is found; one filter
 * naming each row's range costs DuckDB less than joining the rows as a list (0.9 ms vs 1.6 for 3).
 */
export async function sealRows<Row extends Pick<EventRow, 'run_id' | 'seq'>>(
  connection: StoreConnection,
  rows: readonly Row[],
): Promise<Sealed<Row>[]> {
  const inRuns = rows.filter((row) => row.run_id !== null);
  const batches =
    inRuns.length === 0
      ? []
      : await readRows<{ run_id: string; seq_from: bigint; seq_to: bigint; object_hash: string }>(
          connection,
          sql`SELECT run_id, seq_from, seq_to, object_hash FROM event_batches WHERE ${join(
            inRuns.map(
              (row) => sql`(run_id = ${row.run_id} AND seq_from <= ${row.seq} AND seq_to > ${row.seq})`,
            ),
            ' OR ',
          )}`,
        );
  const sealedBy = (row: Row): string | null =>
    batches.find(
      (batch) => batch.run_id === row.run_id && batch.seq_from <= row.seq && batch.seq_to > row.seq,
    )?.object_hash ?? null;
  return rows.map((row) => ({ ...row, sealed_by: sealedBy(row) }));
}

/**
 * The event with this id, if stored. An id is `<batch>.<index>`: a batch's digests record the seq
 * range its events got at commit, and settled_ranges the time span of those the spool settled
 * later (settling rewrites seq). Looking there first lets DuckDB's zone maps skip every other row
 * group; the whole table is the fallback. A commit gives its batch's events consecutive positions
 * in index order, so an event still where its commit put it is read at its very position first
 * (half the time of the range at 10M events: 0.9 ms vs 2.0); one the spool settled is not there.
 * `places` (the store thread's memory of both tables) spares the read of where to look: a round
 * trip on explain's path. Wherever it says to look, the last read is of the whole table, and an
 * id names one event: a place decides how soon the event is found, never which.
 */
export async function readEvent(
  connection: StoreConnection,
  id: string,
  places: BatchPlaces | null = null,
): Promise<EventRow | undefined> {
  const dot = id.lastIndexOf('.');
  const batch = id.slice(0, Math.max(0, dot));
  const index = /^\d{1,9}$/.test(id.slice(dot + 1)) ? BigInt(id.slice(dot + 1)) : null;
  const where =
    places?.placesOf(batch) ??
    (await readRows<BatchPlace>(
      connection,
      sql`SELECT true AS committed, seq_from AS "from", seq_to - 1 AS "to" FROM event_batches
            WHERE batch_id = ${batch} AND seq_from IS NOT NULL
          UNION ALL SELECT false, time_from_ns, time_to_ns FROM settled_ranges WHERE batch_id = ${batch}`,
    ));
  const read = async (range: Statement): Promise<EventRow | undefined> =>
    (
      await readRows<EventRow>(
        connection,
        sql`SELECT ${eventRowColumns} FROM events WHERE ${range} AND id = ${id} LIMIT 1`,
      )
    )[0];
  // a batch has one digest row per run, all with its range: each range once
  const ranges = where.filter(
    (range, k) =>
      where.findIndex(
        (other) => other.committed === range.committed && other.from === range.from && other.to === range.to,
      ) === k,
  );
  // where its commit put it; where the spool's settling moved it; its commit's whole range (a store
  // written otherwise, e.g. by SQL); then anywhere
  const reads = [
    ...ranges.flatMap(({ committed, from, to }) =>
      committed && index !== null && from + index <= to ? [sql`seq = ${from + index}`] : [],
    ),
    ...ranges.flatMap(({ committed, from, to }) =>
      committed ? [] : [sql`time_ns BETWEEN ${from} AND ${to}`],
    ),
    ...ranges.flatMap(({ committed, from, to }) => (committed ? [sql`seq BETWEEN ${from} AND ${to}`] : [])),
    sql`true`,
  ];
  for (const range of reads) {
    const row = await read(range);
    if (row !== undefined) return row;
  }
  return undefined;
}

/** A row found with a batch that holds it (null: none), and that batch's place in its table. */
export type SealingRow<Row> = Sealed<Row> & { sealing_row: bigint | null };

/**
 * One row per event, each with its seal: of the batches a join found holding an event, the first in
 * table order, the one sealRows would name (a run's batches never overlap, so there is one at most).
 */
export function sealedOnce<Row extends { id: string }>(rows: readonly SealingRow<Row>[]): Sealed<Row>[] {
  const first = new Map<string, SealingRow<Row>>();
  for (const row of rows) {
    const kept = first.get(row.id);
    const earlier =
      kept === undefined ||
      (row.sealing_row !== null && (kept.sealing_row === null || row.sealing_row < kept.sealing_row));
    if (earlier) first.set(row.id, row);
  }
  return [...first.values()].map(({ sealing_row: _r, ...row }) => row as unknown as Sealed<Row>);
}

/** A row of no run: no batch seals it. */
export function unsealed<Row>(row: Row | undefined): Sealed<Row> | undefined {
  return row === undefined ? undefined : { ...row, sealed_by: null };
}

export function parseEvent(row: Sealed<EventRow>): TelemetryEvent {
  return JSON.parse(eventJson(row)) as TelemetryEvent;
}

/** A string or number attribute as text; anything else is absent. */
export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** An event as a node. */
export function eventNode(row: Sealed<EventRow>): ExplainNode {
  const event = parseEvent(row);
  const what =
    textOf(event.attrs['path']) ?? textOf(event.attrs['dst_ip']) ?? textOf(event.attrs['query']) ?? '';
  return {
    kind: 'event',
    id: row.id,
    run_id: row.run_id,
    label: `${event.type} by ${row.comm ?? '?'} (pid ${row.tgid ?? row.pid ?? '?'})${what === '' ? '' : `: ${what}`}`,
    time: event.time,
    evidence_level: evidenceName(row.evidence_level),
    object_hash: row.sealed_by,
    event,
  };
}
