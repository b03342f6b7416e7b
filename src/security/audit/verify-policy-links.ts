/**
 * verify's check of the policy's links (interface spec: verification covers "the association
 * from policy to signal"): every decision of the run still names a stored event of the run with
 * the hash it judged, every judged event still has its decision, and every kill provd recorded
 * rests on a kill decision. Only what disagrees leaves DuckDB.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { VerifyIssues } from '../../provenance/verify-issues.js';
import { readRows, sql } from '../../store/sql.js';

/** Issues named per kind; the rest are counted (as VerifyIssues lists them). */
const listed = 100;

export async function verifyPolicyLinks(
  connection: DuckDBConnection,
  runId: string,
  issues: VerifyIssues,
): Promise<void> {
  const missing = await readRows<{ event_id: string; total: bigint }>(
    connection,
    sql`SELECT event_id, count(*) OVER () AS total FROM policy_decisions d
        WHERE d.run_id = ${runId} AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
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
