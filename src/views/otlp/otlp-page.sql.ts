/**
 * The OTLP export's reads and its cursor, on the store thread: which runs have sealed evidence not
 * yet acknowledged, one page of a run (read in one snapshot), and the cursor moved once the
 * endpoint acknowledged a page. Only what a checkpoint seals is sent: events up to the run's last
 * sealed batch (as a run's export bundle), tool calls as stored under that checkpoint.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { evidenceName, methodName, typeName } from '../../model/codes.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import { execute, inTransaction, list, readRows, sql } from '../../store/sql.js';
import { decisionsOf, type DecisionRow } from '../../security/judged-events.sql.js';
import { addCounters } from '../../telemetry/producer-counters.sql.js';
import type {
  OtlpAck,
  OtlpEvent,
  OtlpPage,
  OtlpPendingRun,
  OtlpRunFacts,
  OtlpToolCall,
} from './otlp-page.js';

/** Events in one page: one OTLP request of about 1 MB at most (a span is ~0.5-1 KB). */
export const otlpPageEvents = 1000;
/**
 * Bytes of stored attrs in one page: a TLS event's attrs hold up to 64 KiB of body (cut to 4 KiB
 * in its span), so a page of them stops here rather than at 1,000 events.
 */
const otlpPageAttrBytes = 4 * 1024 * 1024;
/** Tool calls in one page; more are sent in the pages after (their status is recorded as sent). */
const otlpPageToolCalls = 1000;

/**
 * Runs whose latest checkpoint was not all sent yet, the longest waiting first. From the runs'
 * checkpoint heads (a row a run), so a look costs the same however many checkpoints were made.
 */
export async function pendingOtlpRuns(connection: StoreConnection, limit: number): Promise<OtlpPendingRun[]> {
  return readRows<OtlpPendingRun>(
    connection,
    sql`SELECT h.run_id FROM run_heads h LEFT JOIN otlp_cursor o ON o.run_id = h.run_id
        WHERE h.chain = 'checkpoint' AND (o.chain_index IS NULL OR h.chain_index > o.chain_index)
        ORDER BY h.updated_ns, h.run_id LIMIT ${limit}`,
  );
}

/** The next page of `run`, or null when its latest checkpoint was all sent. */
export async function readOtlpPage(connection: StoreConnection, run: string): Promise<OtlpPage | null> {
  type Row = Record<string, unknown>;
  const [head] = await readRows<Row>(
    connection,
    sql`SELECT c.hash, c.chain_index, o.chain_index AS sent_index, coalesce(o.next_seq, 0) AS next_seq,
          r.object_hash, r.first_seen_ns, v.status AS verify_status,
          coalesce((SELECT max(seq_to) FROM event_batches WHERE run_id = ${run} AND object_hash IS NOT NULL), 0) AS sealed_to
        FROM checkpoints c LEFT JOIN otlp_cursor o ON o.run_id = c.run_id
          LEFT JOIN runs r ON r.run_id = c.run_id LEFT JOIN verify_results v ON v.run_id = c.run_id
        WHERE c.run_id = ${run} ORDER BY c.chain_index DESC LIMIT 1`,
  );
  if (head === undefined) return null;
  const chainIndex = head['chain_index'] as bigint;
  const sentIndex = head['sent_index'] as bigint | null;
  if (sentIndex !== null && sentIndex >= chainIndex) return null;
  const from = head['next_seq'] as bigint;
  const sealedTo = head['sealed_to'] as bigint;
  const events = await readRows<Row>(
    connection,
    sql`SELECT e.id, e.seq, e.type, e.time_ns, e.pid, e.ppid, e.comm, e.corr_method, e.evidence_level,
          e.attrs, e.hash, coalesce(e.judged, false) AS judged,
          CASE WHEN t.tool_call_id IS NULL THEN NULL ELSE e.tool_call_id END AS tool_call_id
        FROM events e LEFT JOIN tool_calls t ON t.run_id = e.run_id AND t.tool_call_id = e.tool_call_id
        WHERE e.run_id = ${run} AND e.seq >= ${from} AND e.seq < ${sealedTo}
        ORDER BY e.seq LIMIT ${otlpPageEvents}`,
  );
  let bytes = 0;
  const kept = events.findIndex((row) => (bytes += (row['attrs'] as string).length) > otlpPageAttrBytes);
  const cut = kept > 0; // the first event is sent whatever its size
  if (cut) events.length = kept;
  // the decisions of the page's judged events, by their seq range (none read when it judged none:
  // a scan of every decision in the store a page, before)
  const judged = events
    .filter((row) => row['judged'] === true)
    .map((row) => ({ seq: row['seq'] as bigint, id: row['id'] as string }));
  const { decisions } = await decisionsOf(connection, judged);
  const calls = await readRows<Row>(
    connection,
    sql`SELECT t.tool_call_id, t.status, t.record, t.object_hash, t.started_ns, t.ended_ns FROM tool_calls t
        LEFT JOIN otlp_tool_calls s ON s.run_id = t.run_id AND s.tool_call_id = t.tool_call_id
        WHERE t.run_id = ${run} AND (s.status IS NULL OR s.status <> t.status)
        ORDER BY t.started_ns, t.tool_call_id LIMIT ${otlpPageToolCalls}`,
  );
  const last = events.at(-1);
  const more = cut || events.length === otlpPageEvents || calls.length === otlpPageToolCalls;
  return {
    run_id: run,
    run: more ? null : await runFacts(connection, run, head, sealedTo),
    tool_calls: calls.map(toolCallOf),
    events: events.map((row) => eventOf(row, decisions)),
    next_seq: String(last === undefined ? from : (last['seq'] as bigint) + 1n),
    done_chain_index: more ? null : String(chainIndex),
  };
}

/** The run's own span as of its latest checkpoint: its time span, verify status and token usage. */
async function runFacts(
  connection: StoreConnection,
  run: string,
  head: Record<string, unknown>,
  sealedTo: bigint,
): Promise<OtlpRunFacts> {
  const [span] = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT least((SELECT min(time_ns) FROM events WHERE run_id = ${run} AND seq < ${sealedTo}),
                     (SELECT min(started_ns) FROM tool_calls WHERE run_id = ${run})) AS first,
               greatest((SELECT max(time_ns) FROM events WHERE run_id = ${run} AND seq < ${sealedTo}),
                        (SELECT max(coalesce(ended_ns, started_ns)) FROM tool_calls WHERE run_id = ${run})) AS last,
               (SELECT sum(input_tokens) FROM run_llm_usage WHERE run_id = ${run}) AS input_tokens,
               (SELECT sum(output_tokens) FROM run_llm_usage WHERE run_id = ${run}) AS output_tokens,
               (SELECT json_extract_string(body, '$.payload.agent') FROM objects
                 WHERE run_id = ${run} AND kind = 'hook_event' ORDER BY created_ns LIMIT 1) AS agent`,
  );
  const firstSeen = head['first_seen_ns'] as bigint | null;
  const start = (span?.['first'] as bigint | null) ?? firstSeen ?? 0n;
  const end = (span?.['last'] as bigint | null) ?? start;
  const inputTokens = span?.['input_tokens'] as bigint | null | undefined;
  return {
    run_id: run,
    object_hash: head['object_hash'] as string | null,
    checkpoint_hash: head['hash'] as string,
    start_ns: String(start),
    end_ns: String(end > start ? end : start),
    verify_status: head['verify_status'] as string | null,
    usage:
      inputTokens === null || inputTokens === undefined
        ? null
        : { input_tokens: Number(inputTokens), output_tokens: Number(span?.['output_tokens'] ?? 0n) },
    agent: (span?.['agent'] as string | null | undefined) ?? null,
  };
}

function toolCallOf(row: Record<string, unknown>): OtlpToolCall {
  const record = JSON.parse(row['record'] as string) as { command?: string; exit_code?: number | null };
  const ended = row['ended_ns'] as bigint | null;
  return {
    tool_call_id: row['tool_call_id'] as string,
    name: record.command ?? '',
    status: row['status'] as string,
    object_hash: row['object_hash'] as string,
    start_ns: String(row['started_ns']),
    end_ns: ended === null ? null : String(ended),
    exit_code: record.exit_code ?? null,
  };
}

function eventOf(row: Record<string, unknown>, decisions: ReadonlyMap<string, DecisionRow>): OtlpEvent {
  const id = row['id'] as string;
  return {
    id,
    seq: String(row['seq']),
    type: typeName(row['type'] as number),
    time_ns: String(row['time_ns']),
    pid: row['pid'] as number | null,
    ppid: row['ppid'] as number | null,
    comm: row['comm'] as string | null,
    tool_call_id: row['tool_call_id'] as string | null,
    evidence_level: evidenceName(row['evidence_level'] as number),
    correlation_method: methodName(row['corr_method'] as number),
    decision: decisionSummary(decisions.get(id)),
    attrs: row['attrs'] as string,
    hash: row['hash'] as string,
  };
}

/** What an event's span says of its decision. */
function decisionSummary(row: DecisionRow | undefined): OtlpEvent['decision'] {
  return row === undefined ? null : { decision: row.decision, rule_id: row.rule_id };
}

/**
 * Moves `ack.run_id`'s cursor past an acknowledged (or refused) page and counts it, in one
 * transaction: a crash before it commits sends the page again (at least once), never skips it.
 */
export async function ackOtlpPage(connection: StoreConnection, ack: OtlpAck): Promise<void> {
  await inTransaction(connection, async () => {
    const now = BigInt(Date.now()) * 1_000_000n;
    // -1: no checkpoint of the run all sent yet (pages of its first one follow)
    const chain = ack.done_chain_index === null ? -1n : BigInt(ack.done_chain_index);
    await execute(
      connection,
      sql`INSERT INTO otlp_cursor VALUES (${ack.run_id}, ${chain}, ${BigInt(ack.next_seq)}, ${now})
          ON CONFLICT (run_id) DO UPDATE SET chain_index = greatest(otlp_cursor.chain_index, excluded.chain_index),
            next_seq = excluded.next_seq, sent_ns = excluded.sent_ns`,
    );
    if (ack.tool_calls.length > 0)
      await execute(
        connection,
        sql`INSERT OR REPLACE INTO otlp_tool_calls SELECT ${ack.run_id}, unnest(${list(
          ack.tool_calls.map((call) => call.tool_call_id),
          VARCHAR,
        )}), unnest(${list(
          ack.tool_calls.map((call) => call.status),
          VARCHAR,
        )})`,
      );
    await addCounters(connection, [
      { source: 'otlp', counter: ack.rejected ? 'rejected_spans' : 'sent_spans', value: ack.spans },
      { source: 'otlp', counter: ack.rejected ? 'rejected_pages' : 'sent_pages', value: 1 },
    ]);
  });
}

/** Counts an export that failed and will be tried again (the endpoint down, a timeout, a 5xx). */
export async function countOtlpFailure(connection: StoreConnection): Promise<void> {
  await addCounters(connection, [{ source: 'otlp', counter: 'failed_exports', value: 1 }]);
}
