/** explain of a file of a run: the effects and events that touched it, and the tool call of the latest. */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { readRows, sql } from '../../store/sql.js';
import type { ExplainNode, ExplainStep } from './explain-result.js';
import { type Explained, type Source, unknown } from './explain-trail.js';
import { fromEvent } from './explain-event.sql.js';
import { toToolCall } from './explain-tool-call.sql.js';
import { type EventRow, eventNode, readEvent, sealRows } from './explain-reads.sql.js';

/** Touches of a file listed. */
export const maxTouches = 20;

/**
 * A file of a run: the events whose path is it, and the recorded file effects on it (their path
 * joined to their tool call's cwd); the path goes through the first touch.
 */
export async function explainFile(source: Source, runId: string, path: string): Promise<Explained> {
  const { connection } = source;
  await requireRun(connection, runId);
  const events = await readRows<{ id: string; time_ns: bigint }>(
    connection,
    sql`SELECT id, time_ns FROM events WHERE run_id = ${runId} AND json_extract_string(attrs, '$.path') = ${path}
        ORDER BY time_ns, seq`,
  );
  const effects = await readRows<{ hash: string; body: string; created_ns: bigint }>(
    connection,
    sql`SELECT o.hash, o.body, o.created_ns FROM objects o
        JOIN tool_calls t ON t.run_id = o.run_id AND t.tool_call_id = json_extract_string(o.body, '$.payload.tool_call_id')
        WHERE o.run_id = ${runId} AND o.kind = 'file_effect'
          AND (json_extract_string(o.body, '$.payload.path') = ${path}
            OR rtrim(json_extract_string(t.record, '$.cwd'), '/') || '/' || json_extract_string(o.body, '$.payload.path') = ${path})
        ORDER BY o.created_ns`,
  );
  const touchCount = events.length + effects.length;
  if (touchCount === 0) unknown('file', `${path}" in run "${runId}`);
  const rows: EventRow[] = [];
  for (const { id } of events.slice(0, maxTouches))
    rows.push((await readEvent(connection, id, source.places))!);
  const touches = (await sealRows(connection, rows)).map(eventNode);
  for (const effect of effects.slice(0, maxTouches - touches.length)) touches.push(effectNode(runId, effect));
  touches.sort((a, b) => ((a.time ?? '') < (b.time ?? '') ? -1 : 1));
  const first = touches[0]!;
  const node: ExplainNode = {
    kind: 'file',
    id: path,
    run_id: runId,
    label: `file ${path}: ${touchCount} touch${touchCount === 1 ? '' : 'es'}`,
    time: first.time,
    evidence_level: first.evidence_level,
    object_hash: null,
  };
  const touched: ExplainStep = {
    basis: {
      relation: 'touched_by',
      method: 'path',
      confidence: 1,
      evidence_level: first.evidence_level,
      binding_id: null,
      object_hash: first.object_hash,
    },
    node: first,
  };
  const rest =
    first.kind === 'event'
      ? (
          await fromEvent(
            source,
            rows.find((row) => row.id === first.id)!,
          )
        ).trail
      : await toToolCall(connection, runId, toolCallOfEffect(effects, first.id), 'effect_of', first.id);
  return { node, trail: { ...rest, path: [touched, ...rest.path] }, touches, touchCount };
}

/** The tool call a stored file effect names. */
export function toolCallOfEffect(effects: readonly { hash: string; body: string }[], hash: string): string {
  const effect = effects.find((candidate) => candidate.hash === hash)!;
  return String((JSON.parse(effect.body) as { payload: Record<string, unknown> }).payload['tool_call_id']);
}

export function effectNode(
  runId: string,
  effect: { hash: string; body: string; created_ns: bigint },
): ExplainNode {
  const payload = (JSON.parse(effect.body) as { payload: Record<string, unknown> }).payload;
  return {
    kind: 'file_effect',
    id: effect.hash,
    run_id: runId,
    label: `${String(payload['effect'])} by tool call ${String(payload['tool_call_id'])}: ${String(payload['path'])}`,
    time: formatRfc3339Nanos(effect.created_ns),
    evidence_level: 'self_observed',
    object_hash: effect.hash,
  };
}
