/**
 * verify's check of the policy's links (interface spec: verification covers "the association
 * from policy to signal"): the decisions on each sealed batch's events are those its signed object
 * records, every decision of the run still names a stored event of the run with the hash it
 * judged (the decisions on tool calls are checked against their objects instead:
 * verify-tool-call-decisions.sql.ts), every judged event still has its decision, and every kill
 * provd recorded rests on a kill decision.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { decisionLeaf, type DecisionFacts } from '../../provenance/decision-leaf.js';
import { merkleRoot } from '../../provenance/merkle.js';
import type { SealedBatch } from '../../provenance/verify-events.sql.js';
import type { VerifyIssues } from '../../provenance/verify-issues.js';
import { readRows, sql } from '../../store/sql.js';
import { toolCallSeq } from '../tool-call-decisions.sql.js';

/** Issues named per kind; the rest are counted (as VerifyIssues lists them). */
const listed = 100;

export async function verifyPolicyLinks(
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  issues: VerifyIssues,
): Promise<void> {
  await verifyJudgmentRoots(connection, runId, batches, issues);
  const missing = await readRows<{ event_id: string; total: bigint }>(
    connection,
    sql`SELECT event_id, count(*) OVER () AS total FROM policy_decisions d
        WHERE d.run_id = ${runId} AND d.seq IS DISTINCT FROM ${toolCallSeq}
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
        ORDER BY event_id LIMIT ${listed}`,
  );
  report(
    issues,
    'decision_event_missing',
    missing,
    (id) => `the decision on event ${id} names no stored event`,
  );
  const altered = await readRows<{ event_id: string; total: bigint; moved: boolean }>(
    connection,
    sql`SELECT d.event_id, count(*) OVER () AS total, e.run_id IS DISTINCT FROM ${runId} AS moved
        FROM policy_decisions d JOIN events e ON e.id = d.event_id
        WHERE (d.run_id = ${runId} OR e.run_id = ${runId})
          AND (d.event_hash <> e.hash OR (d.run_id IS NOT NULL AND e.run_id IS DISTINCT FROM d.run_id))
        ORDER BY d.event_id LIMIT ${listed}`,
  );
  const reason = new Map(altered.map((row) => [row.event_id, row.moved]));
  report(issues, 'decision_event_altered', altered, (id) =>
    reason.get(id) === true
      ? `event ${id} was judged as an event of this run and is no longer one`
      : `event ${id} does not hash to the hash its decision recorded`,
  );
  const undecided = await readRows<{ event_id: string; total: bigint }>(
    connection,
    sql`SELECT id AS event_id, count(*) OVER () AS total FROM events e
        WHERE e.run_id = ${runId} AND e.judged
          AND NOT EXISTS (SELECT 1 FROM policy_decisions d WHERE d.event_id = e.id)
        ORDER BY seq LIMIT ${listed}`,
  );
  report(issues, 'decision_missing', undecided, (id) => `event ${id} was judged, and its decision is gone`);
  const unfounded = await readRows<{ event_id: string; total: bigint }>(
    connection,
    sql`SELECT x.event_id, count(*) OVER () AS total FROM enforcements x
        WHERE x.run_id = ${runId} AND NOT EXISTS
          (SELECT 1 FROM policy_decisions d WHERE d.event_id = x.event_id AND d.decision = 'kill')
        ORDER BY x.event_id LIMIT ${listed}`,
  );
  report(
    issues,
    'enforcement_decision_missing',
    unfounded,
    (id) => `provd recorded a kill for event ${id}, which has no kill decision`,
  );
}

function report(
  issues: VerifyIssues,
  kind: Parameters<VerifyIssues['errorMany']>[0],
  rows: readonly { event_id: string; total: bigint }[],
  message: (eventId: string) => string,
): void {
  if (rows.length === 0) return;
  issues.errorMany(
    kind,
    Number(rows[0]!.total),
    rows.map((row) => ({ id: row.event_id, message: message(row.event_id) })),
  );
}

/**
 * Recomputes each sealed batch's judgment root over the decisions on the run's events it seals, in
 * event order: a decision added, removed (its event's `judged` flag with it) or rewritten fails.
 */
async function verifyJudgmentRoots(
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  issues: VerifyIssues,
): Promise<void> {
  const sealing = batches
    .filter((batch) => batch.judged !== null)
    .sort((a, b) => (a.seqFrom < b.seqFrom ? -1 : 1));
  if (sealing.length === 0) return;
  const rows = await readRows<DecisionFacts & { seq: bigint }>(
    connection,
    sql`SELECT e.seq, d.event_id, d.event_hash, d.decision, d.rule_id, d.severity, d.reason,
          d.advisory_rule_id, d.advisory_decision, d.advisory_reason, d.policy
        FROM events e JOIN policy_decisions d ON d.event_id = e.id
        WHERE e.run_id = ${runId} AND e.judged ORDER BY e.seq`,
  );
  const leaves = new Map<SealedBatch, string[]>(sealing.map((batch) => [batch, []]));
  for (const row of rows) {
    const batch = batchOf(sealing, row.seq);
    if (batch !== undefined) leaves.get(batch)!.push(decisionLeaf(row));
  }
  const broken = sealing.filter((batch) => {
    const found = leaves.get(batch)!;
    return found.length !== batch.judged || merkleRoot(found) !== batch.judgmentRoot;
  });
  issues.errorMany(
    'judgment_root_mismatch',
    broken.length,
    broken.slice(0, listed).map((batch) => ({
      id: batch.hash,
      message: `the batch records ${batch.judged} decisions on its events; ${leaves.get(batch)!.length} are stored, or they differ`,
    })),
  );
}

/** The batch (sorted by seqFrom, disjoint) whose [seqFrom, seqTo) holds `seq`. */
function batchOf(sorted: readonly SealedBatch[], seq: bigint): SealedBatch | undefined {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const batch = sorted[middle]!;
    if (seq < batch.seqFrom) high = middle - 1;
    else if (seq >= batch.seqTo) low = middle + 1;
    else return batch;
  }
  return undefined;
}
