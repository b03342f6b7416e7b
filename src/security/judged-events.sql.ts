/**
 * One keyset page of the events the policy judged, with their decisions: what risks, responses
 * and audit associations are read from, in event order. Events are probed in seq ranges that widen
 * until the page is full or the store ends: seq grows with the table's row order, so zone maps keep
 * a bounded range cheap, and the run's other events are never joined.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import type { DecisionFacts } from '../provenance/decision-leaf.js';
import { mayHoldCommands } from '../provenance/record/command-runs.sql.js';
import { list, raw, readRows, sql } from '../store/sql.js';
import { commandFactsOf, commandFactsRows, type CommandFactsRow } from './responses/command-facts.sql.js';
import type { CommandFacts } from './responses/response.js';

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

/** A judged event (all its columns, unless a page read fewer) with its decision. */
export interface Judged<Event = JudgedEvent> {
  event: Event;
  decision: DecisionRow;
}

/** A page of judged events after a position. */
export interface JudgedPage<Event = JudgedEvent> {
  judged: Judged<Event>[];
  hasMore: boolean;
  /** The seq of the page's last event: the next page's position. */
  lastSeq: bigint | null;
  /** The facts of the commands provd ran among the page's tool calls, by tool call (a run's page only). */
  commands: Map<string, CommandFacts>;
}

// First probe width, in positions; each further probe is 8 times wider (as the events page).
const firstProbe = 65_536n;

/** Every column of a JudgedEvent, in the order responses and audit associations read them. */
export const judgedEventColumns = [
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
] as const satisfies readonly (keyof JudgedEvent)[];

/** The columns a page must read whatever else it needs: its position and its decisions' key. */
type PageKey = 'seq' | 'id';

/**
 * The judged events after seq `after` of `run`, or of every run when null, with their decisions.
 * An event whose decision row is gone is skipped here (verify reports it). `endSeq` is the next
 * position the store will hand out: nothing is stored at or beyond it. `columns` are the event
 * columns read, seq and id among them (judgedEventColumns: all): each string column a probe reads
 * costs DuckDB its decoding over the whole window, not only over the rows it keeps (a risks page of
 * 6 columns instead of 12 at 10M events: 1.8 ms instead of 6.1 on a deep page).
 */
export async function pageJudgedEvents<Column extends keyof JudgedEvent>(
  connection: StoreConnection,
  run: string | null,
  after: bigint,
  limit: number,
  endSeq: bigint,
  columns: readonly (Column | PageKey)[],
): Promise<JudgedPage<Pick<JudgedEvent, Column | PageKey>>> {
  type Event = Pick<JudgedEvent, Column | PageKey>;
  const ofRun = run === null ? sql`run_id IS NOT NULL` : sql`run_id = ${run}`;
  const selected = raw(columns.join(', '));
  let rows: Event[] = [];
  for (let width = firstProbe; ; width *= 8n) {
    const upper = after + width;
    rows = await readRows<Event>(
      connection,
      sql`SELECT ${selected} FROM events
          WHERE ${ofRun} AND judged AND seq > ${after} AND seq <= ${upper}
          ORDER BY seq LIMIT ${limit + 1}`,
    );
    if (rows.length > limit || upper + 1n >= endSeq) break;
  }
  const page = rows.slice(0, limit);
  // a run's page also reads what provd did about its tool calls, in the same statement
  const toolCalls =
    run === null
      ? []
      : [...new Set(page.flatMap((event) => (event as Partial<JudgedEvent>).tool_call_id ?? []))];
  const { decisions, commands } = await decisionsOf(connection, page, run ?? '', toolCalls);
  return {
    judged: page.flatMap((event) => {
      const decision = decisions.get(event.id);
      return decision === undefined ? [] : [{ event, decision }];
    }),
    hasMore: rows.length > limit,
    lastSeq: page.at(-1)?.seq ?? null,
    commands,
  };
}

/**
 * The decisions on the given events (in seq order), by event id, and the facts of the commands
 * provd ran among `toolCalls` of `run` (command-facts.sql.ts), in one statement. A decision carries
 * its event's position, and decisions are written in their events' order: the page's seq range
 * prunes the table by its zone maps (3 ms at 10M events, where a match on the ids alone scans it:
 * 10 ms).
 */
export async function decisionsOf(
  connection: StoreConnection,
  events: readonly Pick<JudgedEvent, PageKey>[],
  run = '',
  toolCalls: readonly string[] = [],
): Promise<{ decisions: Map<string, DecisionRow>; commands: Map<string, CommandFacts> }> {
  if (events.length === 0) return { decisions: new Map(), commands: new Map() };
  const ids = list(
    events.map((event) => event.id),
    VARCHAR,
  );
  // most runs hold no command provd ran: they read no part for it
  const commanded = toolCalls.length > 0 && (await mayHoldCommands(connection, run));
  const commandsPart = commanded ? sql`UNION ALL BY NAME ${commandFactsRows(run, toolCalls)}` : sql``;
  const rows = await readRows<(DecisionRow & { part: 'decision' }) | CommandFactsRow>(
    connection,
    sql`SELECT 'decision' AS part, event_id, event_hash, decision, rule_id, severity, reason,
          advisory_rule_id, advisory_decision, advisory_reason, policy, decided_ns
        FROM policy_decisions WHERE seq BETWEEN ${events[0]!.seq} AND ${events.at(-1)!.seq}
          AND list_contains(${ids}, event_id)
        ${commandsPart}`,
  );
  const decisions = new Map<string, DecisionRow>();
  for (const row of rows) if (row.part === 'decision') decisions.set(row.event_id, decisionOf(row)); // without the other part's nulls
  const commandRows = rows.filter((row): row is CommandFactsRow => row.part !== 'decision');
  return { decisions, commands: commandFactsOf(commandRows) };
}

/** A decision row's own columns, as decisionsOf selects them. */
function decisionOf(row: DecisionRow): DecisionRow {
  const { event_id, event_hash, decision, rule_id, severity, reason, policy, decided_ns } = row;
  const { advisory_rule_id, advisory_decision, advisory_reason } = row;
  return {
    event_id,
    event_hash,
    decision,
    rule_id,
    severity,
    reason,
    advisory_rule_id,
    advisory_decision,
    advisory_reason,
    policy,
    decided_ns,
  };
}
