/**
 * Re-correlation of spooled events, in the store actor: rows read back from the events table go
 * through the same BindingIndex.correlate the normalize workers use, so there is one set of rules.
 */
import type { BindingIndex } from './binding-index.js';
import { sourceName, typeName } from './codes.js';
import type { ParsedEvent } from './event.js';
import type { EventJsonRow } from './event-json.js';
import type { EventRecord } from './event-row.js';

/** The columns a spooled row is read back with (see pendingRowsSql). */
export type PendingRow = Pick<
  EventJsonRow,
  | 'id'
  | 'type'
  | 'source'
  | 'time'
  | 'time_ns'
  | 'ingested_ns'
  | 'pid'
  | 'tgid'
  | 'ppid'
  | 'uid'
  | 'comm'
  | 'cgroup_id'
  | 'container_id'
  | 'attrs'
  | 'hash'
>;

/** The columns a spooled row is read back with, in SELECT order. */
export const pendingRowColumns =
  'id, type, source, time, time_ns, ingested_ns, pid, tgid, ppid, uid, comm, cgroup_id, container_id, attrs, hash';

/** The spooled rows that a binding now attributes, as full records ready to update. */
export function recorrelate(rows: readonly PendingRow[], index: BindingIndex): EventRecord[] {
  const settled: EventRecord[] = [];
  for (const row of rows) {
    const event: ParsedEvent = {
      type: typeName(row.type),
      source: sourceName(row.source),
      time: row.time,
      timeNs: row.time_ns,
      pid: row.pid,
      tgid: row.tgid,
      ppid: row.ppid,
      uid: row.uid === null ? null : Number(row.uid),
      comm: row.comm,
      cgroupId: row.cgroup_id,
      containerId: row.container_id,
      attrs: JSON.parse(row.attrs) as Record<string, unknown>,
    };
    const match = index.correlate(event);
    if (match === undefined) continue;
    settled.push({
      ...event,
      id: row.id,
      runId: match.binding.run_id,
      toolCallId: match.binding.tool_call_id,
      bindingId: match.binding.binding_id,
      method: match.method,
      confidence: match.confidence,
      evidenceLevel: match.evidenceLevel,
      spoolState: 'settled',
      ingestedNs: row.ingested_ns,
      hash: row.hash,
    });
  }
  return settled;
}
