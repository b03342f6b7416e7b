/**
 * explain of a hook tool call, its kernel's account (docs/agents.md "The kernel's account of a tool
 * call"): the call as the agent told it (decision, input, result), each event tied to it with why
 * (method, confidence, evidence level, the process chain up to the call's shell), the ambiguous
 * events it is one candidate of, and what is missing. Ties are made at ingest
 * (telemetry/tool-call-tie.sql.ts); this reads them and finds the candidates of ambiguous ones.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import { evidenceName, methodCode, methodName, typeCode, typeName } from '../../model/codes.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { list, readRows, sql } from '../../store/sql.js';
import type { HookDecision } from '../../provenance/hooks/hook-decision.js';
import { hookCalls, shellCarries, withinCall, writesPath } from '../../telemetry/tool-call-tie.sql.js';
import type { AmbiguousEvent, ProcessLink, TiedEvent, ToolCallAccount } from './tool-call-account.js';

const listedEvents = 200;
const cut = (text: string | null): string | null => (text === null ? null : text.slice(0, 300));

interface CallRow {
  tool_call_id: string;
  pre_ns: bigint;
  post_ns: bigint | null;
  denied: boolean;
  tool_name: string | null;
  command: string | null;
  paths: string[] | null;
}

/** The account of `toolCallId` in `runId`, or undefined when it is no hook tool call. */
export async function readToolCallAccount(
  connection: StoreConnection,
  runId: string,
  toolCallId: string,
  status: string,
): Promise<ToolCallAccount | undefined> {
  const calls = await readRows<CallRow>(
    connection,
    sql`SELECT tool_call_id, pre_ns, post_ns, denied, tool_name, command, paths
        FROM (${hookCalls(sql`(SELECT unnest(${list([runId], VARCHAR)}))`)})`,
  );
  const call = calls.find((row) => row.tool_call_id === toolCallId);
  if (call === undefined) return undefined;
  const told = await readTold(connection, runId, toolCallId);
  const { events, count } = await readTied(connection, runId, toolCallId);
  const ambiguous = await readAmbiguous(connection, runId, call);
  const missing: string[] = [];
  if (call.denied) missing.push('denied by the gate: it never ran, so no process of it exists to tie');
  else if (count === 0 && ambiguous.length === 0)
    missing.push(
      call.command !== null
        ? 'no exec of a shell carrying its command was seen within the call (the agent not bound to the run, the sensor off, or the command cut from an argv past 1024 bytes)'
        : call.paths !== null
          ? 'no write of its path by the agent was seen within the call'
          : 'its tool runs no process and writes no file provd can tie',
    );
  if (!call.denied && call.post_ns === null)
    missing.push('no PostToolUse stored yet: its window is still open');
  if (told.preToolUseSeen === false)
    missing.push('its PreToolUse was never stored (hooks installed mid-session?)');
  return {
    tool_name: call.tool_name,
    status,
    decision: told.decision,
    input: told.input,
    result: told.result,
    events,
    event_count: count,
    ambiguous,
    missing,
  };
}

/** What the agent's hooks told of the call: its sealed decision, its input and result. */
async function readTold(connection: StoreConnection, runId: string, toolCallId: string) {
  const [row] = await readRows<{ payload: string; input: string | null; result: string | null }>(
    connection,
    sql`SELECT json_extract(o.body, '$.payload')::VARCHAR AS payload, decode(i.content) AS input,
          (SELECT decode(a.content) FROM objects r JOIN artifacts a
             ON a.hash = json_extract_string(r.body, '$.payload.content_hash')
           WHERE r.run_id = ${runId} AND r.kind = 'hook_content'
             AND json_extract_string(r.body, '$.payload.tool_call_id') = ${toolCallId}
             AND json_extract_string(r.body, '$.payload.stream') = 'tool_result'
           ORDER BY r.created_ns DESC LIMIT 1) AS result
        FROM tool_calls t JOIN objects o ON o.hash = t.object_hash
          LEFT JOIN artifacts i ON i.hash = json_extract_string(o.body, '$.payload.input_hash')
        WHERE t.run_id = ${runId} AND t.tool_call_id = ${toolCallId}`,
  );
  const payload = JSON.parse(row!.payload) as {
    decision?: HookDecision | null;
    pre_tool_use_seen?: boolean;
  };
  const parse = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));
  return {
    decision: payload.decision ?? null,
    preToolUseSeen: payload.pre_tool_use_seen,
    input: parse(row!.input),
    result: parse(row!.result),
  };
}

interface EventRow {
  id: string;
  type: number;
  time_ns: bigint;
  tgid: number | null;
  ppid: number | null;
  comm: string | null;
  subject: string | null;
  corr_method: number;
  corr_confidence: number | null;
  evidence_level: number;
  binding_id: string | null;
}

// an exec by its argv, anything else by its path
const eventColumns = sql`id, type, time_ns, coalesce(tgid, pid) AS tgid, ppid, comm,
  CASE WHEN type = ${typeCode('execve')} THEN array_to_string(json_extract_string(attrs, '$.argv[*]'), ' ')
    ELSE json_extract_string(attrs, '$.path') END AS subject,
  corr_method, corr_confidence, evidence_level, binding_id`;

/** The call's tied events, earliest first, each with its process chain. */
async function readTied(connection: StoreConnection, runId: string, toolCallId: string) {
  const ties = [methodCode('hook_exec_match'), methodCode('hook_path_time')];
  const rows = await readRows<EventRow & { n: bigint }>(
    connection,
    sql`SELECT ${eventColumns}, count(*) OVER () AS n FROM events
        WHERE run_id = ${runId} AND tool_call_id = ${toolCallId} AND corr_method IN (${ties[0]!}, ${ties[1]!})
        ORDER BY time_ns, seq LIMIT ${listedEvents}`,
  );
  // the call's processes, each by its first exec (and else its first event): the links of the chains
  const processes = await readRows<{
    tgid: number;
    ppid: number | null;
    comm: string | null;
    argv: string | null;
  }>(
    connection,
    sql`SELECT coalesce(tgid, pid) AS tgid, arg_min(ppid, time_ns) AS ppid, arg_min(comm, time_ns) AS comm,
          arg_min(array_to_string(json_extract_string(attrs, '$.argv[*]'), ' '), time_ns)
            FILTER (WHERE type = ${typeCode('execve')}) AS argv
        FROM events WHERE run_id = ${runId} AND tool_call_id = ${toolCallId}
          AND corr_method = ${methodCode('hook_exec_match')} GROUP BY 1`,
  );
  const byTgid = new Map(processes.map((process) => [process.tgid, process]));
  const events = rows.map((row): TiedEvent => {
    const method = methodName(row.corr_method);
    const chain: ProcessLink[] = [];
    for (let tgid = row.tgid, seen = 0; method === 'hook_exec_match' && tgid !== null && seen < 64; seen++) {
      const process = byTgid.get(tgid);
      if (process === undefined) break;
      chain.push({ tgid, comm: process.comm, argv: cut(process.argv) });
      tgid = process.ppid;
    }
    return {
      event_id: row.id,
      type: typeName(row.type),
      time: formatRfc3339Nanos(row.time_ns),
      tgid: row.tgid,
      subject: cut(row.subject),
      method,
      confidence: row.corr_confidence,
      evidence_level: evidenceName(row.evidence_level),
      binding_id: row.binding_id,
      chain,
    };
  });
  return { events, count: Number(rows[0]?.n ?? 0n) };
}

/**
 * The run's ambiguous shells and writes that this call fits, each with every call it fits, by the
 * tie's own rules (shellCarries, writesPath, withinCall).
 */
async function readAmbiguous(
  connection: StoreConnection,
  runId: string,
  call: CallRow,
): Promise<AmbiguousEvent[]> {
  if (call.denied) return [];
  const runs = sql`(SELECT unnest(${list([runId], VARCHAR)}))`;
  const rows = await readRows<EventRow & { candidates: string[] }>(
    connection,
    sql`SELECT ${eventColumns}, list(c.tool_call_id ORDER BY c.pre_ns, c.tool_call_id) AS candidates
        FROM (SELECT * FROM events WHERE run_id = ${runId} AND time_ns >= ${call.pre_ns}
                AND corr_method IN (${methodCode('hook_exec_ambiguous')}, ${methodCode('hook_path_ambiguous')})) e
          JOIN (${hookCalls(runs)}) c ON NOT c.denied AND ${withinCall('e', 'c')}
            AND ((e.corr_method = ${methodCode('hook_exec_ambiguous')} AND ${shellCarries('e', 'c')})
              OR (e.corr_method = ${methodCode('hook_path_ambiguous')} AND ${writesPath('e', 'c')}))
        GROUP BY ALL HAVING list_contains(candidates, ${call.tool_call_id})
        ORDER BY time_ns, id`,
  );
  return rows.map((row) => ({
    event_id: row.id,
    type: typeName(row.type),
    time: formatRfc3339Nanos(row.time_ns),
    subject: cut(row.subject),
    method: methodName(row.corr_method),
    confidence: row.corr_confidence,
    candidates: row.candidates,
  }));
}
