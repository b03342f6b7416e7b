/**
 * A stored graph object as the context answers describe it: its address, kind, place in its chain,
 * parents, the instant provd stored it, the tool call it belongs to, and one summary line (the
 * timeline's, for the kinds the timeline shows). Read from the objects row alone.
 */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import { artifactOf, bindingOf, fileEffectOf, type TimelineToolCall } from '../timeline/context-records.js';
import {
  artifactSummary,
  bindingSummary,
  fileEffectSummary,
  toolCallSummary,
} from '../timeline/entry-summary.js';
import { parseObject, type GraphObject, type ObjectKind } from '../../provenance/graph-object.js';
import type { ObjectHash } from '../../model/object-hash.js';

/** The objects columns the context answers read. */
export const objectColumns = 'hash, kind, run_id, chain_index, body, created_ns';

/** An objects row as DuckDB hands back `objectColumns`. */
export interface StoredObjectRow {
  hash: string;
  kind: string;
  run_id: string;
  chain_index: bigint | null;
  body: string;
  created_ns: bigint;
}

/** One object, described. */
export interface ObjectBrief {
  hash: ObjectHash;
  kind: ObjectKind;
  run_id: string;
  /** Its position in its run's chain; null for the run object, the root. */
  index: Count | null;
  /** The hashes it names as parents, in its own order (the chain's previous object first). */
  parents: ObjectHash[];
  /** When provd stored it. */
  recorded_at: DateTimeText;
  tool_call_id: string | null;
  summary: string;
}

/** Describes a stored object; a body that is no graph object is described as malformed, never thrown. */
export function describeObject(row: StoredObjectRow): ObjectBrief {
  const object = parsedOrNull(row.body);
  return {
    hash: row.hash,
    kind: row.kind as ObjectKind,
    run_id: row.run_id,
    index: row.chain_index === null ? null : Number(row.chain_index),
    parents: object?.parents ?? [],
    recorded_at: formatRfc3339Nanos(row.created_ns),
    tool_call_id: object === null ? null : toolCallIdOf(object),
    summary:
      (object === null ? null : summaryOrNull(row, object)) ?? `${row.kind} object with a malformed body`,
  };
}

/** The parsed body, or null when the stored bytes are not a graph object. */
export function parsedOrNull(body: string): GraphObject | null {
  try {
    return parseObject(body);
  } catch {
    return null;
  }
}

function toolCallIdOf(object: GraphObject): string | null {
  const payload = object.payload;
  const inner = object.kind === 'binding' ? (payload['binding'] as Record<string, unknown>) : payload;
  const id = inner?.['tool_call_id'];
  return typeof id === 'string' ? id : null;
}

/** The summary line, or null when the payload lacks what its kind's summary reads. */
function summaryOrNull(row: StoredObjectRow, object: GraphObject): string | null {
  try {
    return summaryOf(row, object);
  } catch {
    return null;
  }
}

function summaryOf(row: StoredObjectRow, object: GraphObject): string {
  const { payload } = object;
  switch (object.kind) {
    case 'run':
      return `run ${object.run_id}`;
    case 'tool_call':
      // an agent's hook: its tool and the gate's decision, no command provd ran (hook-store.sql.ts)
      if (payload['source'] === 'hook')
        return `tool call ${String(payload['tool_call_id'])}: ${String(payload['tool_name'])} (${String(payload['agent'])} hook)`;
      // the payload holds the tool call's record fields (record-store.sql.ts)
      return toolCallSummary(payload as unknown as TimelineToolCall);
    case 'binding':
      return bindingSummary(bindingOf({ record: JSON.stringify(payload['binding']), object_hash: row.hash }));
    case 'artifact':
      return artifactSummary(artifactOf(row));
    case 'file_effect':
      return fileEffectSummary(fileEffectOf(row));
    case 'event_batch':
      return `event batch ${String(payload['batch_id'])}: ${String(payload['events'])} events`;
    case 'checkpoint':
      return `checkpoint ${String(payload['index'])} of run ${object.run_id}`;
    case 'hook_content':
      return `${String(payload['stream'])} of ${typeof payload['tool_call_id'] === 'string' ? payload['tool_call_id'] : 'a hook event'} (${String(payload['size'])} bytes)`;
    case 'hook_event':
      return `${String(payload['agent'])} hook ${String(payload['native_event'])}`;
    case 'agent_watch':
      return payload['event'] === 'started'
        ? `watch of ${String(payload['command'])} started in cgroup ${String(payload['cgroup_id'])}`
        : `watch of ${String(payload['command'])} ended (exit ${String(payload['exit_code'])}, signal ${String(payload['signal'])})`;
  }
}
