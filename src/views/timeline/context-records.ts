/**
 * Application context as the timeline shows it: tool calls (`tool_calls`), bindings (`bindings`),
 * and the file effects and artifacts POST /v1/record stored as graph objects, each read back from
 * its stored row into one typed record. Both timeline views use these.
 */
import { parseObject } from '../../provenance/graph-object.js';
import { incompleteCallText, incompleteEffectText } from '../../provenance/record/compared-text.js';
import type { FileEffect } from '../../provenance/record/file-effects.js';
import type { FileEffectsCompared } from '../../provenance/record/snapshot-coverage.js';
import type { RecordedToolCall } from '../../provenance/record/record-answer.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { BindingFields } from '../../telemetry/binding.js';
import { bindingFromJson } from '../../telemetry/binding-json.js';

/** A tool call as POST /v1/record stored it: executed, or asserted with execute:false. */
export type TimelineToolCall = RecordedToolCall;

/** A ToolCallScope binding as stored. */
export interface TimelineBinding extends BindingFields {
  /** When the daemon accepted it. */
  created_at: DateTimeText;
  /** The binding object in the run's graph; null for a binding stored before the graph existed. */
  object_hash: string | null;
}

/** A change the daemon saw a recorded command make to a file under its cwd. */
export interface TimelineFileEffect extends FileEffect {
  tool_call_id: string;
  /** The file_effect object in the run's graph. */
  object_hash: string;
}

/** An output stream of a recorded command, stored as content-addressed bytes. */
export interface TimelineArtifact {
  tool_call_id: string;
  stream: 'stdout' | 'stderr';
  /** `sha256:<hex>` of the stored bytes (the artifact's address). */
  content_hash: string;
  /** Bytes the stream carried. */
  size: Count;
  /** Bytes stored: the first ones. */
  stored_bytes: Count;
  truncated: boolean;
  /** `sha256:<hex>` of every byte the stream carried. */
  stream_hash: string;
  /** The artifact object in the run's graph. */
  object_hash: string;
}

/** A tool_calls row as the timeline reads it. */
export interface ToolCallRow {
  record: string;
  object_hash: string;
}

/** A bindings row as the timeline reads it. */
export interface BindingRow {
  record: string;
  object_hash: string | null;
}

/** An objects row (file_effect or artifact) as the timeline reads it. */
export interface ObjectRow {
  hash: string;
  body: string;
}

/** The tool call of a tool_calls row; its `record` holds the provenance.record/v1 answer's fields. */
export function toolCallOf(row: ToolCallRow): TimelineToolCall {
  const record = JSON.parse(row.record) as Omit<TimelineToolCall, 'object_hash'>;
  return {
    tool_call_id: record.tool_call_id,
    status: record.status,
    executed: record.executed,
    command: record.command,
    args: record.args,
    cwd: record.cwd,
    started_at: record.started_at,
    ended_at: record.ended_at,
    duration_ms: record.duration_ms,
    pid: record.pid,
    exit_code: record.exit_code,
    signal: record.signal,
    error: record.error,
    binding_id: record.binding_id,
    object_hash: row.object_hash,
  };
}

/** What a stored record says of its file effects' completeness (record-answer.ts). */
interface RecordCompleteness {
  file_effects_complete?: boolean;
  file_effects_incomplete_reason?: string | null;
  file_effects_compared?: FileEffectsCompared;
}

/** The words beside a tool call whose file effects are incomplete; null when they are complete. */
export function callEffectsNote(row: ToolCallRow): string | null {
  const record = JSON.parse(row.record) as RecordCompleteness;
  if (record.file_effects_complete !== false) return null;
  return incompleteCallText(
    record.file_effects_compared ?? null,
    record.file_effects_incomplete_reason ?? null,
  );
}

/**
 * The words beside a file effect of an incomplete record, from its record's `file_effects_compared`
 * as JSON text (`{}`: a record stored before it existed); null (a complete record) for none.
 */
export function effectNote(compared: string | null): string | null {
  if (compared === null) return null;
  const parsed = JSON.parse(compared) as Partial<FileEffectsCompared>;
  return incompleteEffectText(parsed.not_compared === undefined ? null : (parsed as FileEffectsCompared));
}

/** The binding of a bindings row, without the parsed instants the workers use. */
export function bindingOf(row: BindingRow): TimelineBinding {
  const { created_ns: createdNs, startNs: _start, endNs: _end, ...fields } = bindingFromJson(row.record);
  return { ...fields, created_at: formatRfc3339Nanos(createdNs), object_hash: row.object_hash };
}

/** The file effect of a file_effect object (payload: see provenance/record/record-store.sql.ts). */
export function fileEffectOf(row: ObjectRow): TimelineFileEffect {
  const payload = parseObject(row.body).payload as unknown as FileEffect & { tool_call_id: string };
  return {
    tool_call_id: payload.tool_call_id,
    path: payload.path,
    effect: payload.effect,
    kind: payload.kind,
    size: payload.size,
    hash_before: payload.hash_before,
    hash_after: payload.hash_after,
    object_hash: row.hash,
  };
}

/** The artifact of an artifact object (payload: see provenance/record/record-store.sql.ts). */
export function artifactOf(row: ObjectRow): TimelineArtifact {
  const payload = parseObject(row.body).payload as unknown as Omit<TimelineArtifact, 'object_hash'>;
  return {
    tool_call_id: payload.tool_call_id,
    stream: payload.stream,
    content_hash: payload.content_hash,
    size: payload.size,
    stored_bytes: payload.stored_bytes,
    truncated: payload.truncated,
    stream_hash: payload.stream_hash,
    object_hash: row.hash,
  };
}
