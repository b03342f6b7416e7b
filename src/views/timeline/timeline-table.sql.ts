/**
 * GET /v1/timeline?view=table in the store actor: one keyset page of a run's merged timeline. The
 * key of an entry is (time, rank of its source, tie); each source reads at most limit + 1 rows past
 * the cursor, in key order, on its own keyset predicate, and the page is the first limit of their
 * merge (one more tells whether there is a next page): at most 5 (limit + 1) rows reach JS.
 * Loader and locale opens are left out of the events' keyset read itself unless `all`, so a page is
 * never short and a cursor walks the same filtered set; the run's count of them is read beside.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { runNotFound } from '../../store/run-exists.sql.js';
import { ProvdError } from '../../shared/errors.js';
import { join, raw, readRows, sql, type Statement } from '../../store/sql.js';
import { integerPart } from '../../model/cursor.js';
import { timelineSources, type SourceKey, type TimelineSource } from './timeline-sources.sql.js';
import { keysetPage } from '../../store/keyset-page.js';
import { asJsonText, type JsonText } from '../../store/json-text.js';
import type { TimelineRisk, TimelineTable } from './timeline-table.js';
import { decisionsOf } from '../../security/judged-events.sql.js';
import { riskOf, type RiskEvent } from '../../security/risks.js';
import { hiddenLoaderOpen, shownByDefault } from '../../telemetry/loader-opens.sql.js';

/** Validated parameters of one table page. */
export interface TimelineTableParams {
  run: string;
  limit: number;
  cursor: string | null;
  /** List loader and locale opens too (marked); by default only counted. */
  all: boolean;
}

/** Where a page starts: after the entry with this key. */
interface Keyset {
  timeNs: bigint;
  rank: number;
  tie: bigint | string;
}

/** A row of one source, with its rank for the merge. */
type Ranked = SourceKey & { rank: number };

/**
 * The TimelineTable body of one page, as JSON text. The sources are read at once: the events on
 * `connection`, the small context tables and the run's existence on `side`.
 */
export async function listTimeline(
  connection: StoreConnection,
  side: StoreConnection,
  params: TimelineTableParams,
  formatVersion: number,
): Promise<JsonText<TimelineTable>> {
  // the run's existence is read with the page, in one statement with the context tables
  const opened = await keysetPage(
    side,
    { run: null, cursor: params.cursor },
    formatVersion,
    // a cursor is of one filtered set: one of all=true is refused without it, and the reverse
    ['timeline', params.run, 'table', ...(params.all ? ['all'] : [])],
    3,
  );
  const after = opened.after === null ? null : readKeyset(opened.after);
  const pageOf = (source: TimelineSource, rank: number, shown: Statement = sql`TRUE`): Statement =>
    sql`${source.select(params.run)} AND ${keysetFilter(source, rank, after)} AND ${shown}
        ORDER BY ${source.time}, ${source.tie} LIMIT ${params.limit + 1}`;
  const readEvents = async (): Promise<Ranked[]> => {
    const rank = eventRank;
    const source = timelineSources[rank]!;
    const shown = params.all ? sql`TRUE` : shownByDefault;
    const keys = await readRows<SourceKey>(connection, pageOf(source, rank, shown));
    const rows =
      keys.length === 0 ? [] : await readRows<SourceKey>(connection, source.widen!(params.run, keys));
    return rows.map((row) => ({ ...row, rank }));
  };
  // the small context tables in one statement (each source's page as rows of its rank, their ties
  // all text), with the run's existence (rank -1) and its count of loader and locale opens (rank
  // -2, as `hidden`): one statement's fixed price instead of six
  const readContext = async (): Promise<{ rows: Ranked[]; hidden: bigint }> => {
    const pages = timelineSources.flatMap((source, rank) =>
      source.kind === 'event'
        ? []
        : [sql`SELECT ${raw(String(rank))} AS rank, * FROM (${pageOf(source, rank)})`],
    );
    // a union keeps no order: its rows come back by tie, which the merge's stable sort on (time,
    // rank) keeps within one instant of one source, as the cursor's `tie >` expects
    const rows = await readRows<Ranked & { hidden?: bigint }>(
      side,
      sql`SELECT -1 AS rank FROM runs WHERE run_id = ${params.run}
          UNION ALL BY NAME SELECT -2 AS rank, count(*) AS hidden FROM events
            WHERE run_id = ${params.run} AND ${hiddenLoaderOpen}
          UNION ALL BY NAME ${join(pages, ' UNION ALL BY NAME ')}
          ORDER BY tie`,
    );
    if (!rows.some((row) => row.rank === -1)) throw runNotFound(params.run);
    const hidden = rows.find((row) => row.rank === -2)?.hidden ?? 0n;
    return { rows: rows.filter((row) => row.rank >= 0), hidden };
  };
  const [context, events] = await Promise.all([readContext(), readEvents()]);
  const candidates = [...context.rows, ...events];
  // each source is in key order already: a stable sort on (time, rank) keeps its ties as SQL sorted them
  const merged = candidates.sort((a, b) => compareBig(a.time_ns, b.time_ns) || a.rank - b.rank);
  const hasMore = merged.length > params.limit;
  const page = merged.slice(0, params.limit);
  const last = page[page.length - 1];
  const nextCursor =
    hasMore && last !== undefined ? JSON.stringify(opened.next([last.time_ns, last.rank, last.tie])) : 'null';
  const risks = await pageRisks(connection, params.run, page);
  const entries = page.map((row) => timelineSources[row.rank]!.entry(row, risks));
  return asJsonText<TimelineTable>(
    `{"schema_version":"provenance.timeline/v1","view":"table","run_id":${JSON.stringify(params.run)},` +
      `"limit":${params.limit},"count":${page.length},"has_more":${hasMore},"next_cursor":${nextCursor},` +
      `"all":${params.all},"loader_locale_opens":${context.hidden},` +
      `"entries":[${entries.join(',')}]}`,
  );
}

/**
 * The risks on the page's judged events, by event id: their decisions, and what provd did about
 * them (two statements over the page's positions and tool calls; none when the page judged nothing).
 */
async function pageRisks(
  connection: StoreConnection,
  run: string,
  page: readonly Ranked[],
): Promise<Map<string, TimelineRisk>> {
  type EventRow = Ranked & Omit<RiskEvent, 'seq'> & { judged: boolean };
  const events = page.filter((row) => row.rank === eventRank && (row as EventRow).judged) as EventRow[];
  const risks = new Map<string, TimelineRisk>();
  if (events.length === 0) return risks;
  // decisionsOf reads a seq range: the page's events are in time order, not always in seq order
  const positions = events.map((row) => ({ seq: row.tie as bigint, id: row.id }));
  const toolCalls = [...new Set(events.flatMap((row) => row.tool_call_id ?? []))];
  const sorted = positions.sort((a, b) => compareBig(a.seq, b.seq));
  const { decisions, commands } = await decisionsOf(connection, sorted, run, toolCalls);
  for (const row of events) {
    const decision = decisions.get(row.id);
    if (decision === undefined) continue; // a decision gone: verify says so
    const event = { ...row, seq: row.tie as bigint };
    const risk = riskOf({ event, decision }, commands.get(row.tool_call_id ?? '') ?? null);
    const { risk_id, rule_id, severity, decision: decided, response } = risk;
    risks.set(row.id, { risk_id, rule_id, severity, decision: decided, response });
  }
  return risks;
}

const eventRank = timelineSources.findIndex((source) => source.kind === 'event');

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The position a cursor's key holds, or 400 invalid_cursor. */
function readKeyset(key: readonly string[]): Keyset {
  const [time, rankText, tie] = key as [string, string, string];
  const rank = Number(integerPart(rankText));
  const source = timelineSources[rank];
  if (source === undefined)
    throw new ProvdError('invalid_cursor', 'cursor is not a token this daemon issued');
  return { timeNs: integerPart(time), rank, tie: source.integerTie ? integerPart(tie) : tie };
}

/**
 * The rows of `source` (at `rank`) whose key is past `after`: within one instant, ranks order
 * first. `time >= t` is always there, for DuckDB to skip row groups by their time range.
 */
function keysetFilter(source: TimelineSource, rank: number, after: Keyset | null): Statement {
  if (after === null) return sql`TRUE`;
  const { timeNs, tie } = after;
  const { time } = source;
  if (rank < after.rank) return sql`${time} > ${timeNs}`;
  if (rank > after.rank) return sql`${time} >= ${timeNs}`;
  // the tie's type is this source's: readKeyset parsed it for the cursor's rank
  return sql`${time} >= ${timeNs} AND (${time} > ${timeNs} OR ${source.tie} > ${tie})`;
}
