/**
 * A recorded tool call with everything POST /v1/record stored of it, read back on the store thread:
 * its record (tool_calls), its output streams (artifact objects) and its file effects (file_effect
 * objects). The context comparisons (compare-tool-calls.ts) work on these.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { readRows, sql } from '../../store/sql.js';
import {
  artifactOf,
  fileEffectOf,
  toolCallOf,
  type TimelineArtifact,
  type TimelineFileEffect,
  type TimelineToolCall,
} from '../timeline/context-records.js';

/** A recorded tool call, its outputs and its file effects. */
export interface ToolCallFacts {
  run_id: string;
  call: TimelineToolCall;
  /** `self_observed` when provd ran it; `context_asserted` when the caller asserted it. */
  evidence_level: 'self_observed' | 'context_asserted';
  stdout: TimelineArtifact | null;
  stderr: TimelineArtifact | null;
  /** In path order. */
  file_effects: TimelineFileEffect[];
  /** False when a snapshot bound cut what the record saw of cwd. */
  file_effects_complete: boolean;
  /** Effects the record counted beyond those it kept. */
  file_effects_omitted: Count;
}

/** The tool calls read, and whether the run holds more than were read. */
export interface ToolCallsRead {
  calls: ToolCallFacts[];
  more: boolean;
}

interface CallRow {
  run_id: string;
  record: string;
  object_hash: string;
}

/** What the record keeps beside the answer's tool call fields (record-store.sql.ts). */
interface RecordExtras {
  evidence_level: ToolCallFacts['evidence_level'];
  file_effects_complete: boolean;
  file_effects_omitted: number;
}

/**
 * A run's recorded tool calls by start (then id), at most `max`; only `toolCallId` when given. Their
 * outputs and effects come in one read of the run's artifact and file_effect objects.
 */
export async function readToolCalls(
  connection: StoreConnection,
  run: string,
  toolCallId: string | null,
  max: number,
): Promise<ToolCallsRead> {
  const onlyCall = toolCallId === null ? sql`` : sql` AND tool_call_id = ${toolCallId}`;
  const rows = await readRows<CallRow>(
    connection,
    sql`SELECT run_id, record, object_hash FROM tool_calls WHERE run_id = ${run}${onlyCall}
        ORDER BY started_ns, tool_call_id LIMIT ${max + 1}`,
  );
  const more = rows.length > max;
  const kept = rows.slice(0, max);
  const onlyObjects =
    toolCallId === null
      ? sql``
      : sql` AND json_extract_string(body, '$.payload.tool_call_id') = ${toolCallId}`;
  const objects =
    kept.length === 0
      ? []
      : await readRows<{ hash: string; kind: string; body: string }>(
          connection,
          sql`SELECT hash, kind, body FROM objects
              WHERE run_id = ${run} AND kind IN ('artifact', 'file_effect')${onlyObjects}`,
        );
  // grouped by tool call once: a run's objects are read together, whatever the number of calls
  const outputs = new Map<string, TimelineArtifact>();
  const effects = new Map<string, TimelineFileEffect[]>();
  for (const row of objects) {
    if (row.kind === 'artifact') {
      const artifact = artifactOf(row);
      outputs.set(`${artifact.tool_call_id}\u0000${artifact.stream}`, artifact);
    } else {
      const effect = fileEffectOf(row);
      const list = effects.get(effect.tool_call_id) ?? [];
      list.push(effect);
      effects.set(effect.tool_call_id, list);
    }
  }
  const calls = kept.map((row): ToolCallFacts => {
    const call = toolCallOf(row);
    const extras = JSON.parse(row.record) as RecordExtras;
    const output = (stream: 'stdout' | 'stderr'): TimelineArtifact | null =>
      outputs.get(`${call.tool_call_id}\u0000${stream}`) ?? null;
    return {
      run_id: row.run_id,
      call,
      evidence_level: extras.evidence_level,
      stdout: output('stdout'),
      stderr: output('stderr'),
      file_effects: (effects.get(call.tool_call_id) ?? []).sort(byPath),
      file_effects_complete: extras.file_effects_complete,
      file_effects_omitted: extras.file_effects_omitted,
    };
  });
  return { calls, more };
}

function byPath(a: TimelineFileEffect, b: TimelineFileEffect): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
