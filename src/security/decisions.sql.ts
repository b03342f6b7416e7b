/**
 * The policy's decisions in the store (sql/009_policy_decisions.sql), written on the store thread
 * in the transactions of the telemetry domain, which borrows these (wired by the store worker):
 * a commit's verdicts with its events, and the decisions of spooled events when a run claims them.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import { rmSync, writeFileSync } from 'node:fs';
import { decisionLeaf, type DecisionFacts } from '../provenance/decision-leaf.js';
import type { EventVerdict } from '../shared/event-verdict.js';
import { csvSource } from '../store/csv-rows.sql.js';
import { csvInt, csvText } from '../store/csv-text.js';
import { execute, list, raw, readRows, sql, unnested } from '../store/sql.js';

/** The columns of a decisions file, in order (sql/009_policy_decisions.sql, sql/010_responses.sql). */
const decisionColumns = [
  ['event_id', 'VARCHAR'],
  ['event_hash', 'VARCHAR'],
  ['decision', 'VARCHAR'],
  ['rule_id', 'VARCHAR'],
  ['severity', 'VARCHAR'],
  ['reason', 'VARCHAR'],
  ['advisory_rule_id', 'VARCHAR'],
  ['advisory_decision', 'VARCHAR'],
  ['advisory_reason', 'VARCHAR'],
  ['policy', 'VARCHAR'],
  ['run_id', 'VARCHAR'],
  ['seq', 'BIGINT'],
] as const;

/**
 * Stores the verdicts of a commit, in its transaction, each with its event's position. They go
 * through a CSV file at `scratchFile` (removed again): DuckDB's reader loads them in 2.5x less CPU
 * than the same values bound as JSON texts (~8 µs a decision, measured).
 */
export async function insertVerdicts(
  connection: StoreConnection,
  verdicts: readonly EventVerdict[],
  seqs: readonly bigint[],
  scratchFile: string,
): Promise<void> {
  if (verdicts.length === 0) return;
  const decidedNs = BigInt(Date.now()) * 1_000_000n;
  let text = '';
  verdicts.forEach((verdict, i) => {
    const advisory = verdict.advisory;
    text +=
      `${csvText(verdict.eventId)},${csvText(verdict.eventHash)},${csvText(verdict.decision)},` +
      `${csvText(verdict.ruleId)},${csvText(verdict.severity)},${csvText(verdict.reason)},` +
      `${csvText(advisory?.ruleId ?? null)},${csvText(advisory?.decision ?? null)},` +
      `${csvText(advisory?.reason ?? null)},${csvText(verdict.policy)},${csvText(verdict.runId)},` +
      `${csvInt(seqs[i]!)}\n`;
  });
  try {
    writeFileSync(scratchFile, text, { mode: 0o600 });
    const names = decisionColumns.map(([name]) => name);
    const before = names.slice(0, 10).join(', ');
    await execute(
      connection,
      sql`INSERT INTO policy_decisions (${raw(before)}, decided_ns, run_id, seq)
          SELECT ${raw(before)}, ${decidedNs}, run_id, seq FROM ${csvSource([scratchFile], decisionColumns)}`,
    );
  } finally {
    rmSync(scratchFile, { force: true });
  }
}

/**
 * The decisions on judged events that just joined `runId` out of the spool: each is given the run
 * and its event's new position, and its leaf is returned by event id, for the digests that seal them.
 */
export async function settleDecisions(
  connection: StoreConnection,
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
