/**
 * An event's hash recomputed from its stored columns, for verification: the same canonical content
 * as at ingest (event-hash.ts), with type and source decoded from their stored codes and attrs as
 * the canonical JSON string it was stored as. Handed to the provenance module by the store worker.
 */
import { sourceName, typeName } from './codes.js';
import { hashEvent } from './event-hash.js';
import type { EventJsonRow } from './event-json.js';

/** The columns `rehashStoredEvent` reads, in SELECT form. */
export const storedEventColumns =
  'type, source, time, pid, tgid, ppid, uid, comm, cgroup_id, container_id, attrs';

/** An events row as read with `storedEventColumns`. */
export type StoredEventRow = Pick<
  EventJsonRow,
  | 'type'
  | 'source'
  | 'time'
  | 'pid'
  | 'tgid'
  | 'ppid'
  | 'uid'
  | 'comm'
  | 'cgroup_id'
  | 'container_id'
  | 'attrs'
>;

/** `sha256:<hex>` of the row's facts, as ingest hashed them. */
export function rehashStoredEvent(row: StoredEventRow): string {
  return hashEvent(
    {
      type: typeName(row.type),
      source: sourceName(row.source),
      time: row.time,
      timeNs: 0n, // not hashed
      pid: row.pid,
      tgid: row.tgid,
      ppid: row.ppid,
      uid: row.uid === null ? null : Number(row.uid),
      comm: row.comm,
      cgroupId: row.cgroup_id,
      containerId: row.container_id,
      attrs: {}, // not read: attrs go in as their stored canonical JSON
    },
    row.attrs,
  );
}
