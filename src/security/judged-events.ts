/**
 * One keyset page of the events the policy judged, with their decisions: what risks, responses
 * and audit associations are read from, in event order. Events are probed in seq ranges that widen
 * until the page is full or the store ends: seq grows with the table's row order, so zone maps keep
 * a bounded range cheap, and the run's other events are never joined.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DecisionFacts } from '../provenance/decision-leaf.js';
import { probePositions } from '../store/seq-probe.js';
import { raw, readRows, sql, type Statement } from '../store/sql.js';

/** A judged event: the columns its risk, response and associations read. */
export interface JudgedEvent {
  seq: bigint;
  id: string;
  run_id: string;
  type: number;
  time: string;
  pid: number | null;
  cgroup_id: string | null;
  container_id: string | null;
  tool_call_id: string | null;
  binding_id: string | null;
  evidence_level: number;
  /** The event's stored hash now. */
  hash: string;
}

/** The decision on a judged event, as stored (sql/009_policy_decisions.sql). */
export interface DecisionRow extends DecisionFacts {
  decided_ns: bigint;
}

/** A judged event with its decision. */
export interface Judged {
  event: JudgedEvent;
  decision: DecisionRow;
}

/** A page of judged events after a position. */
export interface JudgedPage {
  judged: Judged[];
  hasMore: boolean;
  /** The seq of the page's last event: the next page's position. */
  lastSeq: bigint | null;
}

const eventColumns = [
  'seq',
  'id',
  'run_id',
  'type',
  'time',
  'pid',
  'cgroup_id',
  'container_id',
  'tool_call_id',
  'binding_id',
  'evidence_level',
  'hash',
] as const;
const decisionColumns = [
  'event_id',
  'event_hash',
  'decision',
  'rule_id',
  'severity',
  'reason',
  'advisory_rule_id',
  'advisory_decision',
  'advisory_reason',
  'policy',
  'decided_ns',
] as const;
const selected = raw(
  [...eventColumns.map((name) => `e.${name}`), ...decisionColumns.map((name) => `d.${name}`)].join(', '),
);

/**
 * The judged events after seq `after` of `run`, or of every run when null, with their decisions.
 * An event whose decision row is gone is skipped here (verify reports it).
 */
export async function pageJudgedEvents(
  connection: DuckDBConnection,
  run: string | null,
  after: bigint,
  limit: number,
): Promise<JudgedPage> {
  const [end] = await readRows<{ end: bigint }>(
    connection,
    sql`SELECT coalesce(max(seq), -1) + 1 AS "end" FROM events`,
  );
  const ofRun = (column: string): Statement =>
    run === null ? sql`${raw(column)} IS NOT NULL` : sql`${raw(column)} = ${run}`;
  const positions = await probePositions(
    connection,
    sql`${ofRun('run_id')} AND judged`,
    after,
    limit + 1,
    end!.end,
  );
  const pageEnd = positions[Math.min(positions.length, limit) - 1];
  if (pageEnd === undefined) return { judged: [], hasMore: false, lastSeq: null };
  // A decision carries its event's position, and decisions are written in their events' order:
  // the page's range prunes both tables by their zone maps (matching on ids alone scans every
  // decision: 10 ms at 10M events). Positions only grow, so the range holds the probed events.
  const rows = await readRows<JudgedEvent & DecisionRow>(
    connection,
    sql`SELECT ${selected} FROM events e JOIN policy_decisions d ON d.event_id = e.id
        WHERE ${ofRun('e.run_id')} AND e.judged AND e.seq BETWEEN ${positions[0]!} AND ${pageEnd}
          AND d.seq BETWEEN ${positions[0]!} AND ${pageEnd}
        ORDER BY e.seq`,
  );
  return {
    judged: rows.map((row) => ({ event: pick(row, eventColumns), decision: pick(row, decisionColumns) })),
    hasMore: positions.length > limit,
    lastSeq: pageEnd,
  };
}

/** The named fields of a row, as an object of their own. */
function pick<Row, Name extends keyof Row>(row: Row, names: readonly Name[]): Pick<Row, Name> {
  return Object.fromEntries(names.map((name) => [name, row[name]])) as Pick<Row, Name>;
}
