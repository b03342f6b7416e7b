/**
 * The gate's decisions on tool calls (an agent's PreToolUse, agents/hook-judge.ts), kept in
 * policy_decisions beside the policy's decisions on events, so that risks, signals, responses and
 * the metrics list what the gate stopped. Such a row names no event: its `event_id` and
 * `event_hash` are the hash of the tool_call object that records the decision (sealed in the run's
 * context chain, which verify checks the row against), its `seq` is -1 (an event's position never
 * is, so every read of the decisions on events by position leaves it out), its run the tool call's.
 * As for events, a plain allow is not kept: only deny, quarantine, kill, and allow with a
 * detect-only advisory.
 */
import type { StoreConnection } from '../store/store-connection.js';
import type { ToolCallDecision } from '../provenance/hooks/tool-call-decision.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { RunsHolding } from '../store/runs-holding.js';
import { execute, list, readRows, sql } from '../store/sql.js';
import type { DecisionRow } from './judged-events.sql.js';

/** The position of every decision on a tool call. */
export const toolCallSeq = -1n;

/** Whether a decision is one the store keeps: anything but a plain allow. */
export function isKeptDecision(decision: { decision: string; advisory: unknown }): boolean {
  return decision.decision !== 'allow' || decision.advisory !== null;
}

/**
 * Stores the decision on a PreToolUse, in the transaction of its tool_call object (the hook write,
 * wired by the store worker): one INSERT, only for a call the gate did not simply allow.
 */
export async function insertToolCallDecision(
  connection: StoreConnection,
  { run_id, object_hash, decision, decided_ns }: ToolCallDecision,
): Promise<void> {
  if (!isKeptDecision(decision)) return;
  const { advisory } = decision;
  decisionRuns.note(connection, run_id);
  await execute(
    connection,
    sql`INSERT INTO policy_decisions (event_id, event_hash, decision, rule_id, severity, reason, advisory_rule_id,
          advisory_decision, advisory_reason, policy, decided_ns, run_id, seq)
        VALUES (${object_hash}, ${object_hash}, ${decision.decision}, ${decision.rule_id}, ${decision.severity},
          ${decision.reason}, ${advisory?.rule_id ?? null}, ${advisory?.decision ?? null}, ${advisory?.reason ?? null},
          ${decision.policy}, ${decided_ns}, ${run_id}, ${toolCallSeq})`,
  );
}

/**
 * The runs holding a decision on a tool call: a run's first risks or responses page reads
 * policy_decisions for them only in these (a read costs ~2 ms a page, and most runs have none).
 */
const decisionRuns = new RunsHolding(
  sql`SELECT DISTINCT run_id FROM policy_decisions WHERE seq = ${toolCallSeq} AND run_id IS NOT NULL`,
);

/** Whether `run` may hold a decision on a tool call (false: it holds none). */
export function mayHoldToolCallDecisions(connection: StoreConnection, run: string): Promise<boolean> {
  return decisionRuns.mayHold(connection, run);
}

/** A decision on a tool call, with the call it judged (null fields: its tool_calls row is gone). */
export interface ToolCallDecisionRow extends DecisionRow {
  tool_call_id: string | null;
  tool_name: string | null;
}

/** Where a page of a run's tool-call decisions starts: after this decision (in decided order). */
export interface ToolCallDecisionKey {
  decidedNs: bigint;
  eventId: string;
}

/** The run's decisions on tool calls after `after` (null: from the first), in the order they were decided. */
export async function pageToolCallDecisions(
  connection: StoreConnection,
  run: string,
  after: ToolCallDecisionKey | null,
  limit: number,
): Promise<{ rows: ToolCallDecisionRow[]; hasMore: boolean }> {
  const from =
    after === null
      ? sql`true`
      : sql`(d.decided_ns > ${after.decidedNs} OR (d.decided_ns = ${after.decidedNs} AND d.event_id > ${after.eventId}))`;
  // the decisions alone first: a run's risks page asks on every first page, and most runs have none,
  // so the join with tool_calls (a scan of it) is made only for the few rows found
  const decisions = await readRows<DecisionRow>(
    connection,
    sql`SELECT d.event_id, d.event_hash, d.decision, d.rule_id, d.severity, d.reason, d.advisory_rule_id,
          d.advisory_decision, d.advisory_reason, d.policy, d.decided_ns
        FROM policy_decisions d
        WHERE d.run_id = ${run} AND d.seq = ${toolCallSeq} AND ${from}
        ORDER BY d.decided_ns, d.event_id LIMIT ${limit + 1}`,
  );
  if (decisions.length === 0) return { rows: [], hasMore: false };
  const calls = await readRows<{
    object_hash: string;
    tool_call_id: string;
    tool_name: string | null;
  }>(
    connection,
    sql`SELECT object_hash, tool_call_id, record->>'$.command' AS tool_name FROM tool_calls
        WHERE run_id = ${run} AND list_contains(${list(
          decisions.map((row) => row.event_id),
          VARCHAR,
        )}, object_hash)`,
  );
  const byHash = new Map(calls.map((call) => [call.object_hash, call]));
  const rows: ToolCallDecisionRow[] = decisions.map((row) => {
    const call = byHash.get(row.event_id);
    return {
      ...row,
      tool_call_id: call?.tool_call_id ?? null,
      tool_name: call?.tool_name ?? null,
    };
  });
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** The run's decisions on tool calls by severity, decision and rule, each with its first (by decided time). */
export interface ToolCallDecisionCount {
  severity: string;
  decision: string;
  rule_id: string;
  decisions: bigint;
  first_id: string;
}

/**
 * The run's decisions on tool calls, counted by severity, decision and rule (for the security
 * signals); a run that holds none, most runs, pays no statement to find none.
 */
export async function countToolCallDecisions(
  connection: StoreConnection,
  run: string,
): Promise<ToolCallDecisionCount[]> {
  if (!(await mayHoldToolCallDecisions(connection, run))) return [];
  return readRows<ToolCallDecisionCount>(
    connection,
    sql`SELECT severity, decision, rule_id, count(*) AS decisions, min_by(event_id, struct_pack(decided_ns, event_id)) AS first_id
        FROM policy_decisions WHERE run_id = ${run} AND seq = ${toolCallSeq}
        GROUP BY ALL ORDER BY ALL`,
  );
}
