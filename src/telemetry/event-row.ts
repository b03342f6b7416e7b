/**
 * The event row file: what a normalize worker writes and the store actor loads with DuckDB's CSV
 * reader (on DuckDB's threads, 2-3x the rate of the Appender for these rows, measured). The column
 * list below is the one contract between the two sides; it must match sql/002_telemetry.sql: events.
 */
import { VARCHAR } from '@duckdb/node-api';
import { list, raw, sql, type Statement } from '../store/sql.js';
import type { ParsedEvent } from './event.js';
import type { CorrelationMethod, EvidenceLevel, SpoolState } from './codes.js';
import { evidenceCode, methodCode, sourceCode, spoolCode, typeCode } from './codes.js';

/** An event after correlation and hashing: one row of the events table. */
export interface EventRecord extends ParsedEvent {
  id: string;
  runId: string | null;
  toolCallId: string | null;
  bindingId: string | null;
  method: CorrelationMethod;
  confidence: number | null;
  evidenceLevel: EvidenceLevel;
  spoolState: SpoolState;
  ingestedNs: bigint;
  hash: string;
  /** What windows count of it (window-deltas.ts: isRisky, eventBytes), stored for late settlement. */
  risky: boolean;
  bytes: number;
  /** The policy stored a decision on it (src/security/): the risks page finds it by this. */
  judged: boolean;
}

/** Columns of a row file in file order, with their DuckDB types; `idx` is the row's index in its file. */
export const eventRowColumns = [
  ['idx', 'BIGINT'],
  ['id', 'VARCHAR'],
  ['run_id', 'VARCHAR'],
  ['type', 'UTINYINT'],
  ['source', 'UTINYINT'],
  ['time', 'VARCHAR'],
  ['time_ns', 'BIGINT'],
  ['ingested_ns', 'BIGINT'],
  ['pid', 'UINTEGER'],
  ['tgid', 'UINTEGER'],
  ['ppid', 'UINTEGER'],
  ['uid', 'BIGINT'],
  ['comm', 'VARCHAR'],
  ['cgroup_id', 'VARCHAR'],
  ['container_id', 'VARCHAR'],
  ['tool_call_id', 'VARCHAR'],
  ['binding_id', 'VARCHAR'],
  ['corr_method', 'UTINYINT'],
  ['corr_confidence', 'DOUBLE'],
  ['evidence_level', 'UTINYINT'],
  ['spool_state', 'UTINYINT'],
  ['attrs', 'VARCHAR'],
  ['hash', 'VARCHAR'],
  ['risky', 'BOOLEAN'],
  ['bytes', 'BIGINT'],
  ['judged', 'BOOLEAN'],
] as const;

const readOptions =
  `columns = {${eventRowColumns.map(([name, type]) => `'${name}': '${type}'`).join(', ')}}, ` +
  `header = false, quote = '"', escape = '"', auto_detect = false, allow_quoted_nulls = false, filename = true`;

/**
 * The read_csv call for row files, as a table source. Strings are always quoted and nulls are
 * empty and unquoted, so with allow_quoted_nulls=false an empty string and NULL stay distinct.
 */
export function eventRowsSource(files: readonly string[]): Statement {
  return sql`read_csv(${list(files, VARCHAR)}, ${raw(readOptions)})`;
}

/** One CSV line (with its newline) for an event row. */
export function encodeEventRow(idx: number, event: EventRecord, attrsJson: string): string {
  return (
    `${idx},${text(event.id)},${text(event.runId)},${typeCode(event.type)},${sourceCode(event.source)},` +
    `${text(event.time)},${event.timeNs},${event.ingestedNs},${int(event.pid)},${int(event.tgid)},` +
    `${int(event.ppid)},${int(event.uid)},${text(event.comm)},${text(event.cgroupId)},` +
    `${text(event.containerId)},${text(event.toolCallId)},${text(event.bindingId)},` +
    `${methodCode(event.method)},${int(event.confidence)},${evidenceCode(event.evidenceLevel)},` +
    `${spoolCode(event.spoolState)},${text(attrsJson)},${text(event.hash)},${event.risky},${event.bytes},${event.judged}\n`
  );
}

/**
 * A quoted CSV string that DuckDB reads back byte for byte. Its reader drops one U+FEFF (a BOM) at
 * the start of any value, so a value starting with one gets a second in front to be dropped. A test
 * (test/telemetry/event-row.test.ts) holds hostile strings to this through the real reader.
 */
function text(value: string | null): string {
  if (value === null) return '';
  const quoted = value.includes('"') ? `"${value.replaceAll('"', '""')}"` : `"${value}"`;
  return value.charCodeAt(0) === 0xfeff ? `"\ufeff${quoted.slice(1)}` : quoted;
}

function int(value: number | null): string {
  return value === null ? '' : String(value);
}
