/** How an events row reads in answers: the runtime event record of the contract. */
import type { tags } from 'typia';
import type { DateTimeText, Integer, Ratio } from '../shared/schema/wire-types.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import {
  evidenceName,
  methodName,
  sourceName,
  typeName,
  type CorrelationMethod,
  type EvidenceLevel,
} from '../model/codes.js';
import type { EventSource, EventType } from '../model/event.js';
import { eventFields, identityFields, type EventFieldKey } from '../model/event-fields.js';

/** Type-specific attributes of an event: path, flags, argv, dst_ip, dst_port, query, bytes, http, ... */
export type EventAttrs = { [name: string]: unknown };

/** One runtime event record (docs/contract.md "Runtime event record"). */
// eventJson below writes this as JSON text, its process identity from the fields table: a fact added
// there is added here too (the check below fails the build until it is)
export interface TelemetryEvent {
  id: string;
  run_id: string | null;
  type: EventType;
  source: EventSource;
  /** Capture instant, UTC with nanoseconds. */
  time: DateTimeText;
  /** Capture time as the producer sent it. */
  time_received: DateTimeText;
  ingested_at: DateTimeText;
  pid: Integer | null;
  tgid: Integer | null;
  ppid: Integer | null;
  uid: Integer | null;
  /** The audit login uid: who logged in (null: unset, or not sent). */
  login_uid: Integer | null;
  comm: string | null;
  cgroup_id: string | null;
  container_id: string | null;
  tool_call_id: string | null;
  binding_id: string | null;
  correlation: { method: CorrelationMethod; confidence: Ratio | null; evidence_level: EvidenceLevel };
  attrs: EventAttrs;
  hash: string & tags.Pattern<'^sha256:[0-9a-f]{64}$'>;
}

/** The columns an answer reads, in SELECT order: the record's facts among them (event-fields.ts). */
export const eventJsonColumns = [
  'id, run_id',
  eventFields.map((field) => field.key).join(', '),
  'ingested_ns, tool_call_id, binding_id, corr_method, corr_confidence, evidence_level, hash',
].join(', ');

/** One row as DuckDB hands it back for `eventJsonColumns`. */
export interface EventJsonRow {
  id: string;
  run_id: string | null;
  type: number;
  source: number;
  time: string;
  time_ns: bigint;
  ingested_ns: bigint;
  pid: number | null;
  tgid: number | null;
  ppid: number | null;
  uid: bigint | null;
  login_uid: number | null;
  comm: string | null;
  cgroup_id: string | null;
  container_id: string | null;
  tool_call_id: string | null;
  binding_id: string | null;
  corr_method: number;
  corr_confidence: number | null;
  evidence_level: number;
  attrs: string;
  hash: string;
}

/** The record's process identity in answer order, as `,"key":value` text (its ids and texts). */
function identityJson(row: EventJsonRow): string {
  let json = '';
  for (const field of identityFields) {
    const value = row[field.key as keyof EventJsonRow];
    json += `,"${field.key}":${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  }
  return json;
}

/**
 * The JSON text of one event, a TelemetryEvent. `time` is the capture instant in UTC with nanoseconds; the string as
 * the producer sent it stays in `time_received`. attrs is stored as canonical JSON and spliced in.
 */
export function eventJson(row: EventJsonRow): string {
  const correlation =
    `{"method":${JSON.stringify(methodName(row.corr_method))},"confidence":${row.corr_confidence ?? 'null'},` +
    `"evidence_level":${JSON.stringify(evidenceName(row.evidence_level))}}`;
  return (
    `{"id":${JSON.stringify(row.id)},"run_id":${JSON.stringify(row.run_id)},` +
    `"type":${JSON.stringify(typeName(row.type))},"source":${JSON.stringify(sourceName(row.source))},` +
    `"time":"${formatRfc3339Nanos(row.time_ns)}","time_received":${JSON.stringify(row.time)},` +
    `"ingested_at":"${formatRfc3339Nanos(row.ingested_ns)}"${identityJson(row)},` +
    `"tool_call_id":${JSON.stringify(row.tool_call_id)},"binding_id":${JSON.stringify(row.binding_id)},` +
    `"correlation":${correlation},"attrs":${row.attrs},"hash":${JSON.stringify(row.hash)}}`
  );
}

/** Fails to compile while a fact of the fields table is missing from TelemetryEvent or EventJsonRow. */
const everyFactAnswered: Record<Exclude<EventFieldKey, 'time_ns'>, true> = {} as Record<
  keyof TelemetryEvent & keyof EventJsonRow & EventFieldKey,
  true
>;
void everyFactAnswered;
