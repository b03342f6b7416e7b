/**
 * The policy's decisions in the store (sql/009_policy_decisions.sql), written on the store thread
 * in the transactions of the telemetry domain, which borrows these (wired by the store worker):
 * a commit's verdicts with its events, and the decisions of spooled events when a run claims them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '@duckdb/node-api';
import { decisionLeaf, type DecisionFacts } from '../provenance/decision-leaf.js';
import type { EventVerdict } from '../shared/event-verdict.js';
import { execute, list, readRows, sql, unnested } from '../store/sql.js';

/** Stores the verdicts of a commit, in its transaction, each with its event's position. */
export async function insertVerdicts(
  connection: DuckDBConnection,
  verdicts: readonly EventVerdict[],
  seqs: readonly bigint[],
): Promise<void> {
  if (verdicts.length === 0) return;
  const decidedNs = BigInt(Date.now()) * 1_000_000n;
  const column = (read: (verdict: EventVerdict) => string | null): [(string | null)[], typeof VARCHAR] => [
    verdicts.map(read),
    VARCHAR,
  ];
  await execute(
    connection,
    sql`INSERT INTO policy_decisions SELECT ${unnested(
      column((verdict) => verdict.eventId),
      column((verdict) => verdict.eventHash),
      column((verdict) => verdict.decision),
      column((verdict) => verdict.ruleId),
      column((verdict) => verdict.severity),
      column((verdict) => verdict.reason),
      column((verdict) => verdict.advisory?.ruleId ?? null),
      column((verdict) => verdict.advisory?.decision ?? null),
      column((verdict) => verdict.advisory?.reason ?? null),
      column((verdict) => verdict.policy),
    )}, ${decidedNs}, ${unnested(
      column((verdict) => verdict.runId),
      [seqs, BIGINT],
    )}`,
  );
}

/**
 * The decisions on judged events that just joined `runId` out of the spool: each is given the run
 * and its event's new position, and its leaf is returned by event id, for the digests that seal them.
 */
export async function settleDecisions(
  connection: DuckDBConnection,
  runId: string,
  events: readonly { id: string; seq: bigint }[],
): Promise<Map<string, string>> {
  if (events.length === 0) return new Map();
  const ids = list(
    events.map((event) => event.id),
    VARCHAR,
  );
  await execute(
    connection,
    sql`UPDATE policy_decisions SET run_id = ${runId}, seq = moved.seq
        FROM (SELECT ${unnested(
          [events.map((event) => event.id), VARCHAR],
          [events.map((event) => event.seq), BIGINT],
        )}) moved(event_id, seq)
        WHERE policy_decisions.event_id = moved.event_id`,
  );
  const rows = await readRows<DecisionFacts>(
    connection,
    sql`SELECT event_id, event_hash, decision, rule_id, severity, reason, advisory_rule_id,
          advisory_decision, advisory_reason, policy
        FROM policy_decisions WHERE event_id IN (SELECT unnest(${ids}))`,
  );
  return new Map(rows.map((row) => [row.event_id, decisionLeaf(row)]));
}
