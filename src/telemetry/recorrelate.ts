/**
 * Re-correlation of spooled events through the index, in the store actor: rows read back from the
 * events table go through the same BindingIndex.correlate the normalize workers use, so there is
 * one set of rules for events whose replica lagged behind the bindings.
 */
import type { BindingIndex, Correlation } from './binding-index.js';
import { typeName } from '../model/codes.js';
import type { ParsedEvent } from '../model/event.js';

/** The columns a spooled row is read back with, in SELECT order (see PendingRow). */
export const pendingRowColumns = 'id, type, time_ns, pid, tgid, ppid, cgroup_id, container_id, attrs';

/** A spooled row as read back: what correlate looks at. */
export interface PendingRow {
  seq: bigint;
  id: string;
  type: number;
  time_ns: bigint;
  pid: number | null;
  tgid: number | null;
  ppid: number | null;
  cgroup_id: string | null;
  container_id: string | null;
  attrs: string;
}

/** A spooled event that a binding now claims, and how. */
export interface SettledEvent {
  seq: bigint;
  id: string;
  runId: string;
  toolCallId: string;
  bindingId: string;
  method: Correlation['method'];
  confidence: number;
  evidenceLevel: Correlation['evidenceLevel'];
}

/** The spooled rows that the index now places, in row order. */
export function recorrelate(rows: readonly PendingRow[], index: BindingIndex): SettledEvent[] {
  const settled: SettledEvent[] = [];
  for (const row of rows) {
    // an explicit literal, not a spread: spreads made dictionary-mode objects, many times slower
    const event: ParsedEvent = {
      type: typeName(row.type),
      source: 'native_jsonl', // not read by correlate
      time: '',
      timeNs: row.time_ns,
      pid: row.pid,
      tgid: row.tgid,
      ppid: row.ppid,
      uid: null,
      loginUid: null,
      comm: null,
      cgroupId: row.cgroup_id,
      containerId: row.container_id,
      attrs: JSON.parse(row.attrs) as Record<string, unknown>,
    };
    const match = index.correlate(event);
    if (match === undefined) continue;
    settled.push({
      seq: row.seq,
      id: row.id,
      runId: match.binding.run_id,
      toolCallId: match.binding.tool_call_id,
      bindingId: match.binding.binding_id,
      method: match.method,
      confidence: match.confidence,
      evidenceLevel: match.evidenceLevel,
    });
  }
  return settled;
}
