/**
 * GET /v1/security/deviations in the store actor: one keyset page of what a run did outside a
 * baseline version. Set deviations are the run's behaviour rows (one per distinct value) whose value
 * the baseline does not hold; rate deviations are the run's window counts over their threshold. One
 * statement selects and orders both, the most severe first; the rates of the page then read the
 * first events of their busiest window.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, UTINYINT } from '@duckdb/node-api';
import { requireRun } from '../../provenance/run-exists.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { list, raw, readRows, sql } from '../../store/sql.js';
import { typeCode } from '../../telemetry/codes.js';
import { decodeCursorKey, encodeCursor, filterDigest, integerPart } from '../../telemetry/cursor.js';
import { eventTypes, type EventType } from '../../telemetry/event.js';
import { severities, type Severity } from '../policy/policy.js';
import { maxBasisEvents, rateCode, rateSeverity, setMeasures, setSeverity } from './baseline-measures.js';
import type { BaselineProfile } from './baseline-profile.query.js';
import type { BaselineKey } from './baselines.query.js';
import {
  deviationOf,
  type DeviationBaseline,
  type DeviationRow,
  type Expectation,
  type SecurityDeviations,
} from './deviation.js';
import { readExpectation } from './expectation.query.js';

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

const rank = (severity: Severity): number => severities.indexOf(severity);
const flaggedRank = rank('high');
// type names by code, for a rate's value (its cursor key and its measure)
const typeNames = raw(`[${eventTypes.map((type) => `'${type}'`).join(', ')}]`);
// a set deviation's rank by measure code, from setSeverity
const setRank = `CASE measure ${setMeasures.map((m, code) => `WHEN ${code} THEN ${rank(setSeverity[m])}`).join(' ')} END`;

/** One page of a run's deviations from the version `params` name (see DeviationsParams), or no_baseline. */
export async function listDeviations(
  connection: DuckDBConnection,
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
  if (expectation === null)
    return {
      ...answer,
      status: 'no_baseline',
      baseline: null,
      count: 0,
      has_more: false,
      next_cursor: null,
      deviations: [],
    };
  const key = { name: expectation.name, version: BigInt(expectation.version) };
  const digest = filterDigest(['deviations', params.run, key.name, Number(key.version)]);
  const after = params.cursor === null ? null : decodeCursorKey(params.cursor, formatVersion, digest, 3);
  const rows = await selectPage(connection, params, key, expectation.rates, after);
  const hasMore = rows.length > params.limit;
  const page = await withRateBases(
    connection,
    params.run,
    expectation.rates.window_s,
    rows.slice(0, params.limit),
  );
  const last = page.at(-1);
  return {
    ...answer,
    status: 'compared',
    baseline: measuredAgainst(expectation, params),
    count: page.length,
    has_more: hasMore,
    next_cursor:
      hasMore && last !== undefined
        ? encodeCursor(formatVersion, digest, [last.rank, last.code, last.value])
        : null,
    deviations: page.map((row) => deviationOf(row, expectation, severities[row.rank]!)),
  };
}

/** The page's rows (one more than the limit), the most severe first, then by measure and value. */
async function selectPage(
  connection: DuckDBConnection,
  params: DeviationsParams,
  key: BaselineKey,
  rates: BaselineProfile['rates'],
  after: string[] | null,
): Promise<DeviationRow[]> {
  const [afterRank, afterCode] = after === null ? [] : [integerPart(after[0]!), integerPart(after[1]!)];
  const position =
    after === null
      ? sql`TRUE`
      : sql`(rank < ${afterRank!} OR (rank = ${afterRank!} AND (code > ${afterCode!}
          OR (code = ${afterCode!} AND value > ${after[2]!}))))`;
  const peakTypes = list(
    rates.peaks.map((peak) => typeCode(peak.type)),
    UTINYINT,
  );
  const peakEvents = list(
    rates.peaks.map((peak) => BigInt(peak.events)),
    BIGINT,
  );
  return readRows<DeviationRow>(
    connection,
    sql`WITH expected AS (SELECT measure, value FROM baseline_values WHERE name = ${key.name} AND version = ${key.version}),
          peaks AS (SELECT unnest(${peakTypes}) AS type, unnest(${peakEvents}) AS peak),
          found AS (
            SELECT CASE WHEN flagged > 0 THEN ${flaggedRank} ELSE ${raw(setRank)} END AS rank, measure AS code, value,
              events, flagged, list_transform(first_events, e -> e.id) AS event_ids, NULL::BIGINT AS peak,
              NULL::BIGINT AS at_ns
            FROM run_behaviour r ANTI JOIN expected e ON e.measure = r.measure AND e.value = r.value
            WHERE r.run_id = ${params.run}
            UNION ALL
            -- a type's busiest window (the earliest of equals) against its threshold
            SELECT CASE WHEN peak = 0 THEN ${rank('medium')} ELSE ${rank(rateSeverity)} END, ${rateCode},
              ${typeNames}[type + 1], observed, 0, [], peak, at_ns
            FROM (SELECT w.type, max(w.events) AS observed, coalesce(any_value(p.peak), 0) AS peak,
                    arg_min(w.bucket_ns, struct_pack(n := -w.events, b := w.bucket_ns)) AS at_ns
                  FROM windows w LEFT JOIN peaks p ON p.type = w.type
                  WHERE w.run_id = ${params.run} AND w.window_s = ${rates.window_s} GROUP BY w.type)
            WHERE observed > greatest(${rates.factor} * peak, peak + ${rates.slack}))
        SELECT * FROM found WHERE ${position} ORDER BY rank DESC, code, value LIMIT ${params.limit + 1}`,
  );
}

/**
 * The page's rows with each rate's basis read from its busiest window: the first events of the type
 * there, and how many of them the policy flagged. One query per rate on the page (at most one per type).
 */
async function withRateBases(
  connection: DuckDBConnection,
  run: string,
  windowS: number,
  page: readonly DeviationRow[],
): Promise<DeviationRow[]> {
  const windowNs = BigInt(windowS) * 1_000_000_000n;
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
