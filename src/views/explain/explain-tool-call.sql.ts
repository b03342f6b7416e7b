/** explain of a tool call and of an artifact: the tool call that produced it, and its run. */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { readRows, sql } from '../../store/sql.js';
import type { ExplainNode, ExplainStep } from './explain-result.js';
import { type Explained, type Trail, toRun, unknown } from './explain-trail.js';
import { readToolCall, toolCallNode } from './tool-call-reads.sql.js';
import { readToolCallAccount } from './tool-call-account.sql.js';
import { requireRun } from '../../store/run-exists.sql.js';

/**
 * A tool call by id: the latest one recorded or bound under that id, in `run` when given, else in
 * any run. A hook tool call also gets its kernel's account (tool-call-account.sql.ts).
 */
export async function explainToolCall(
  connection: StoreConnection,
  id: string,
  run: string | null,
): Promise<Explained> {
  if (run !== null) await requireRun(connection, run);
  const runs = await readRows<{ run_id: string }>(
    connection,
    sql`SELECT run_id, max(seen_ns) AS seen_ns FROM (
          SELECT run_id, started_ns AS seen_ns FROM tool_calls WHERE tool_call_id = ${id}
          UNION ALL SELECT run_id, created_ns AS seen_ns FROM bindings WHERE tool_call_id = ${id})
        WHERE ${run === null ? sql`true` : sql`run_id = ${run}`}
        GROUP BY run_id ORDER BY seen_ns DESC`,
  );
  const runId = runs[0]?.run_id ?? unknown('tool call', id);
  const recorded = await readToolCall(connection, runId, id);
  const [binding] = await readRows<{ binding_id: string; object_hash: string | null }>(
    connection,
    sql`SELECT binding_id, object_hash FROM bindings WHERE run_id = ${runId} AND tool_call_id = ${id}
        ORDER BY created_ns DESC LIMIT 1`,
  );
  const node = toolCallNode(runId, id, recorded);
  const trail = await toRun(connection, runId, [], recorded?.object_hash ?? binding?.object_hash ?? null);
  // the path of a tool call starts at the run: its basis is the tool call's own record or binding
  trail.path[0]!.basis.binding_id = binding?.binding_id ?? null;
  trail.path[0]!.basis.method = recorded === undefined ? 'binding' : 'recorded';
  trail.path[0]!.basis.evidence_level = node.evidence_level;
  const toolCall =
    recorded === undefined ? undefined : await readToolCallAccount(connection, runId, id, recorded.status);
  return { node, trail, otherMatches: runs.length - 1, ...(toolCall !== undefined && { toolCall }) };
}

/** An artifact by its object hash or the address of its bytes: → its tool call → run. */
export async function explainArtifact(connection: StoreConnection, id: string): Promise<Explained> {
  const rows = await readRows<{ hash: string; run_id: string; body: string; created_ns: bigint }>(
    connection,
    sql`SELECT hash, run_id, body, created_ns FROM objects
        WHERE kind = 'artifact' AND (hash = ${id} OR json_extract_string(body, '$.payload.content_hash') = ${id})
        ORDER BY created_ns DESC`,
  );
  const row = rows[0] ?? unknown('artifact', id);
  const payload = (JSON.parse(row.body) as { payload: Record<string, unknown> }).payload;
  const node: ExplainNode = {
    kind: 'artifact',
    id: row.hash,
    run_id: row.run_id,
    label: `${String(payload['stream'])} of tool call ${String(payload['tool_call_id'])}: ${String(payload['size'])} bytes`,
    time: formatRfc3339Nanos(row.created_ns),
    evidence_level: 'self_observed',
    object_hash: row.hash,
  };
  const trail = await toToolCall(
    connection,
    row.run_id,
    String(payload['tool_call_id']),
    'output_of',
    row.hash,
  );
  return { node, trail, otherMatches: rows.length - 1 };
}

/** artifact or file effect → the tool call that produced it → run. */
export async function toToolCall(
  connection: StoreConnection,
  runId: string,
  toolCallId: string,
  relation: 'output_of' | 'effect_of',
  objectHash: string,
): Promise<Trail> {
  const recorded = await readToolCall(connection, runId, toolCallId);
  const path: ExplainStep[] = [
    {
      basis: {
        relation,
        method: 'recorded',
        confidence: 1,
        evidence_level: 'self_observed',
        binding_id: null,
        object_hash: objectHash,
      },
      node: toolCallNode(runId, toolCallId, recorded),
    },
  ];
  return toRun(connection, runId, path, recorded?.object_hash ?? null);
}
