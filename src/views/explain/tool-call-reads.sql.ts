/** explain's reads of tool calls and runs, as nodes. */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { readRows, sql } from '../../store/sql.js';
import type { ExplainNode } from './explain-result.js';

/** A tool call as stored by POST /v1/record, if it was recorded. */
export interface ToolCallRow {
  run_id: string;
  tool_call_id: string;
  status: string;
  record: string;
  object_hash: string;
  started_ns: bigint;
}

export async function readToolCall(
  connection: StoreConnection,
  runId: string,
  toolCallId: string,
): Promise<ToolCallRow | undefined> {
  const [row] = await readRows<ToolCallRow>(
    connection,
    sql`SELECT run_id, tool_call_id, status, record, object_hash, started_ns FROM tool_calls
        WHERE run_id = ${runId} AND tool_call_id = ${toolCallId}`,
  );
  return row;
}

/** A tool call as a node: recorded (its tool_call object), or known only from a binding. */
export function toolCallNode(
  runId: string,
  toolCallId: string,
  recorded: ToolCallRow | undefined,
): ExplainNode {
  if (recorded === undefined)
    return {
      kind: 'tool_call',
      id: toolCallId,
      run_id: runId,
      label: `tool call ${toolCallId} (bound, not recorded)`,
      time: null,
      evidence_level: null,
      object_hash: null,
    };
  const record = JSON.parse(recorded.record) as {
    command?: string;
    args?: string[];
    evidence_level?: string;
  };
  const command = [record.command ?? '', ...(record.args ?? [])].join(' ').slice(0, 200);
  return {
    kind: 'tool_call',
    id: toolCallId,
    run_id: runId,
    label: `tool call ${toolCallId} (${recorded.status}): ${command}`,
    time: formatRfc3339Nanos(recorded.started_ns),
    evidence_level: record.evidence_level === 'self_observed' ? 'self_observed' : 'context_asserted',
    object_hash: recorded.object_hash,
  };
}

/** The run as a node, if known. */
export async function runNode(connection: StoreConnection, runId: string): Promise<ExplainNode | undefined> {
  const [row] = await readRows<{ first_seen_ns: bigint; object_hash: string | null }>(
    connection,
    sql`SELECT first_seen_ns, object_hash FROM runs WHERE run_id = ${runId}`,
  );
  return row === undefined ? undefined : runNodeOf(runId, row.first_seen_ns, row.object_hash);
}

export function runNodeOf(runId: string, firstSeenNs: bigint, objectHash: string | null): ExplainNode {
  return {
    kind: 'run',
    id: runId,
    run_id: runId,
    label: `run ${runId}`,
    time: formatRfc3339Nanos(firstSeenNs),
    evidence_level: null,
    object_hash: objectHash,
  };
}
