/**
 * The security signals of a run, in the store actor: its risks by severity, decision and rule (the
 * policy's decisions on its events, folded in signal-values.sql.ts; GET /v1/security/risks lists them),
 * and its coverage gaps: those recorded for the run, and those tied to no run during its span, which
 * it may have suffered (provd records most loss, the sensor's and producers', without a run).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { decisions, severities } from '../policy/policy.js';
import type { RunSpan } from './run-span.sql.js';
import type { CoverageSignals, GapCounts, SecuritySignals } from './security-signals.js';
import { basis, signalBounds } from './signal-basis.js';
import { countsOf, readValueCounts, type ValueCounts } from './value-counts.sql.js';
import { countToolCallDecisions, type ToolCallDecisionCount } from '../tool-call-decisions.sql.js';

interface GapRow {
  scope: 'run' | 'unattributed';
  kind: string | null;
  gaps: bigint;
  lost: bigint;
  unknown: bigint;
  ids: string[];
}

/** The security signals of the run; `span` is its events' span. */
export async function readSecurity(
  connection: StoreConnection,
  run: string,
  span: RunSpan,
): Promise<SecuritySignals> {
  const values = withToolCalls(
    await readValueCounts(connection, run, riskKinds, signalBounds.list_items),
    await countToolCallDecisions(connection, run),
  );
  const ranked = <T extends string>(kind: 'risk_severity' | 'risk_decision', order: readonly T[]) =>
    countsOf(values, kind)
      .top.map((top) => ({ name: top.value as T, risks: top.events, first_event_id: top.firstEventId }))
      .sort((a, b) => order.indexOf(b.name) - order.indexOf(a.name));
  const rules = countsOf(values, 'risk_rule').top;
  return {
    risks: {
      total: countsOf(values, 'risk_severity').events,
      by_severity: ranked('risk_severity', severities).map(({ name, ...count }) => ({
        severity: name,
        ...count,
      })),
      by_decision: ranked('risk_decision', decisions).map(({ name, ...count }) => ({
        decision: name,
        ...count,
      })),
      by_rule: rules.map((top) => ({
        rule_id: top.value,
        risks: top.events,
        first_event_id: top.firstEventId,
      })),
      basis: basis(
        ['run_signal_values'],
        "the policy_decisions on the run's events and on its agent's tool calls (the gate's on a PreToolUse), by severity, decision and rule; events: the first of each rule, the most frequent first (a tool call's: its tool_call object's hash)",
        { events: rules.map((top) => top.firstEventId) },
      ),
    },
    coverage: await readGaps(connection, run, span),
  };
}

const riskKinds = ['risk_severity', 'risk_decision', 'risk_rule'] as const;

/**
 * The run's folded risk values with the gate's decisions on its tool calls added (they name no
 * event, so the fold over its events never sees them): a few rows a run, read beside it.
 */
function withToolCalls(values: ValueCounts, calls: readonly ToolCallDecisionCount[]): ValueCounts {
  if (calls.length === 0) return values;
  const field = { risk_severity: 'severity', risk_decision: 'decision', risk_rule: 'rule_id' } as const;
  const merged = new Map(values);
  for (const kind of riskKinds) {
    const counts = countsOf(values, kind);
    const top = counts.top.map((count) => ({ ...count }));
    let { distinct, events } = counts;
    for (const call of calls) {
      const n = Number(call.decisions);
      events += n;
      const value = call[field[kind]];
      const found = top.find((count) => count.value === value);
      if (found !== undefined) found.events += n;
      else {
        distinct++;
        top.push({ value, events: n, firstEventId: call.first_id, firstSeq: -1n });
      }
    }
    top.sort((a, b) => b.events - a.events || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    merged.set(kind, { distinct, events, top: top.slice(0, signalBounds.list_items) });
  }
  return merged;
}

async function readGaps(connection: StoreConnection, run: string, span: RunSpan): Promise<CoverageSignals> {
  // a run without events has no span, so no gap of another scope can overlap it
  const inSpan =
    span.firstNs === null || span.lastNs === null
      ? sql`false`
      : sql`run_id IS NULL AND start_ns <= ${span.lastNs} AND end_ns >= ${span.firstNs}`;
  const rows = await readRows<GapRow>(
    connection,
    sql`SELECT scope, kind, count(*) AS gaps, coalesce(sum(lost_events), 0) AS lost,
          count(*) FILTER (WHERE lost_events IS NULL) AS unknown,
          min_by(id, start_ns, ${raw(String(signalBounds.basis_ids))}) AS ids
        FROM (SELECT *, CASE WHEN run_id = ${run} THEN 'run' ELSE 'unattributed' END AS scope
              FROM coverage_gaps WHERE run_id = ${run} OR (${inSpan}))
        GROUP BY GROUPING SETS ((scope, kind), (scope)) ORDER BY scope, gaps DESC, kind`,
  );
  const scope = (name: GapRow['scope'], method: string): GapCounts => {
    const all = rows.find((row) => row.scope === name && row.kind === null);
    return {
      gaps: Number(all?.gaps ?? 0),
      lost_events: Number(all?.lost ?? 0),
      unknown_loss: Number(all?.unknown ?? 0),
      by_kind: rows
        .filter((row) => row.scope === name && row.kind !== null)
        .slice(0, signalBounds.list_items)
        .map((row) => ({ kind: row.kind!, gaps: Number(row.gaps), lost_events: Number(row.lost) })),
      gap_ids: all?.ids ?? [],
      basis: basis(['coverage_gaps'], method),
    };
  };
  return {
    run: scope('run', 'coverage_gaps recorded with this run_id'),
    unattributed_in_span: scope(
      'unattributed',
      "coverage_gaps with no run_id whose [start, end] overlaps the run's first to last event",
    ),
  };
}
