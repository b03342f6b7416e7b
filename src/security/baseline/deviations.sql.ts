/**
 * GET /v1/security/deviations in the store actor: one keyset page of what a run did outside a
 * baseline version, the most severe first. Set deviations are the run's behaviour rows (one per
 * distinct value) that the version's values do not hold, paged in SQL; rate deviations are the
 * run's busiest windows (run_rates) over their threshold, at most one per event type, merged into
 * the page here. The rates on a page then read the first events of their window.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { typeCode, typeName } from '../../model/codes.js';
import { integerPart } from '../../model/cursor.js';
import type { EventType } from '../../model/event.js';
import { severities, type Severity } from '../policy/policy.js';
import {
  maxBasisEvents,
  rateCode,
  rateSeverity,
  rateThreshold,
  setMeasures,
  setSeverity,
} from './baseline-measures.js';
import {
  deviationOf,
  type DeviationBaseline,
  type DeviationRow,
  type Expectation,
  type SecurityDeviations,
} from './deviation.js';
import { readExpectation } from './expectation.sql.js';
import { keysetPage } from '../../store/keyset-page.js';

/** Validated parameters of one page request. */
export interface DeviationsParams {
  run: string;
  /** The baseline's name; null: the most recently learned baseline's. */
  baseline: string | null;
  /** Its version; null: the name's latest. */
  version: number | null;
  limit: number;
  cursor: string | null;
}

/** A deviation's place in the list: severity rank (descending), measure code, value. */
interface Position {
  rank: number;
  code: number;
  value: string;
}

const rank = (severity: Severity): number => severities.indexOf(severity);
// a set deviation's rank: high when the policy flagged one of its events, else by measure
const setRank = raw(
  `CASE WHEN flagged > 0 THEN ${rank('high')} ELSE CASE measure ${setMeasures
    .map((measure, code) => `WHEN ${code} THEN ${rank(setSeverity[measure])}`)
    .join(' ')} END END`,
);

/** One page of a run's deviations from the version `params` name (see DeviationsParams), or no_baseline. */
export async function listDeviations(
  connection: StoreConnection,
  params: DeviationsParams,
  formatVersion: number,
): Promise<SecurityDeviations> {
  await requireRun(connection, params.run);
  const expectation = await readExpectation(connection, params.baseline, params.version);
  const answer = {
    schema_version: 'provenance.security_deviations/v1',
    run_id: params.run,
    limit: params.limit,
  } as const;
  if (expectation === null) {
    const none = { count: 0, has_more: false, next_cursor: null, deviations: [] };
    return { ...answer, status: 'no_baseline', baseline: null, ...none };
  }
  const opened = await keysetPage(
    connection,
    params,
    formatVersion,
    ['deviations', params.run, expectation.name, expectation.version],
    3,
  );
  const key = opened.after;
  const after = key === null ? null : { rank: num(key[0]!), code: num(key[1]!), value: key[2]! };
  const sets = await selectSets(connection, params, expectation, after);
  const rates = (await selectRates(connection, params.run, expectation)).filter(
    (row) => after === null || isAfter(row, after),
  );
  // sets come back in the store's order; within a rank every set comes before every rate (code 5)
  const rows = [...sets, ...rates].sort(byPosition).slice(0, params.limit + 1);
  const hasMore = rows.length > params.limit;
  const page = await withRateBases(connection, params.run, expectation, rows.slice(0, params.limit));
  const last = page.at(-1);
  return {
    ...answer,
    status: 'compared',
    baseline: measuredAgainst(expectation, params),
    count: page.length,
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? opened.next([last.rank, last.code, last.value]) : null,
    deviations: page.map((row) => deviationOf(row, expectation, severities[row.rank]!)),
  };
}

/** The first limit + 1 set deviations after `after`, the most severe first, then by measure and value. */
function selectSets(
  connection: StoreConnection,
  params: DeviationsParams,
  expectation: Expectation,
  after: Position | null,
): Promise<DeviationRow[]> {
  const position =
    after === null
      ? sql`TRUE`
      : sql`(rank < ${after.rank} OR (rank = ${after.rank} AND (code > ${after.code}
          OR (code = ${after.code} AND value > ${after.value}))))`;
  return readRows<DeviationRow>(
    connection,
    sql`SELECT * FROM (
          SELECT ${setRank} AS rank, measure AS code, value, events, flagged, first_ids AS event_ids,
            NULL AS peak, NULL AS at_ns
          FROM run_behaviour r ANTI JOIN (SELECT measure, value FROM baseline_values
                                          WHERE name = ${expectation.name} AND version = ${expectation.version}) e
            ON e.measure = r.measure AND e.value = r.value
          WHERE r.run_id = ${params.run})
        WHERE ${position} ORDER BY rank DESC, code, value LIMIT ${params.limit + 1}`,
  );
}

/** The run's event types whose busiest window holds more than the threshold (the earliest of equal windows). */
async function selectRates(
  connection: StoreConnection,
  run: string,
  expectation: Expectation,
): Promise<DeviationRow[]> {
  const peaks = new Map(expectation.rates.peaks.map((peak) => [peak.type, peak.events]));
  const busiest = await readRows<{ type: number; observed: bigint; at_ns: bigint }>(
    connection,
    sql`SELECT type, peak AS observed, peak_ns AS at_ns FROM run_rates
        WHERE run_id = ${run} AND window_s = ${expectation.rates.window_s}`,
  );
  return busiest.flatMap(({ type, observed, at_ns: atNs }) => {
    const peak = peaks.get(typeName(type)) ?? 0;
    if (Number(observed) <= rateThreshold(peak, expectation.rates)) return [];
    const severity = peak === 0 ? 'medium' : rateSeverity;
    return [
      {
        rank: rank(severity),
        code: rateCode,
        value: typeName(type),
        events: observed,
        flagged: 0n,
        event_ids: [],
        peak: BigInt(peak),
        at_ns: atNs,
      },
    ];
  });
}

/** True when `row` (a rate: code 5, a type name as value) comes after `after` in the list. */
function isAfter(row: DeviationRow, after: Position): boolean {
  if (row.rank !== after.rank) return row.rank < after.rank;
  if (row.code !== after.code) return row.code > after.code;
  return row.value > after.value;
}

/** List order; set rows of one rank and measure keep the store's order (the sort is stable). */
function byPosition(a: DeviationRow, b: DeviationRow): number {
  if (a.rank !== b.rank) return b.rank - a.rank;
  if (a.code !== b.code) return a.code - b.code;
  // only rates are compared by value here: type names are ASCII, ordered alike everywhere
  return a.code === rateCode ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : 0;
}

/**
 * The page's rows with each rate's basis read from its busiest window: the first events of the type
 * there, and how many of them the policy flagged. One query per rate on the page (at most one per type).
 */
async function withRateBases(
  connection: StoreConnection,
  run: string,
  expectation: Expectation,
  page: readonly DeviationRow[],
): Promise<DeviationRow[]> {
  const windowNs = BigInt(expectation.rates.window_s) * 1_000_000_000n;
  const rows: DeviationRow[] = [];
  for (const row of page) {
    if (row.code !== rateCode || row.at_ns === null) {
      rows.push(row);
      continue;
    }
    const [basis] = await readRows<{ flagged: bigint; ids: string[] | null }>(
      connection,
      sql`SELECT count(*) FILTER (WHERE judged) AS flagged, min_by(id, seq, ${maxBasisEvents}) AS ids FROM events
          WHERE run_id = ${run} AND type = ${typeCode(row.value as EventType)}
            AND time_ns >= ${row.at_ns} AND time_ns < ${row.at_ns + windowNs}`,
    );
    rows.push({ ...row, flagged: basis?.flagged ?? 0n, event_ids: basis?.ids ?? [] });
  }
  return rows;
}

/** The baseline the run was measured against, as the answer names it. */
function measuredAgainst(expectation: Expectation, params: DeviationsParams): DeviationBaseline {
  return {
    name: expectation.name,
    version: expectation.version,
    profile_sha256: expectation.profile_sha256,
    created_at: formatRfc3339Nanos(expectation.created_ns),
    selection: params.baseline === null ? 'most_recent' : 'requested',
    learned_from_run: expectation.runs.includes(params.run),
  };
}

/** A cursor key's integer part as a number (ranks and codes are small). */
function num(part: string): number {
  return Number(integerPart(part));
}
