/**
 * Learned baselines in the store actor: learning a new version (a write), reading one version, and
 * paging the list. A version is never changed or removed once learned.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { VARCHAR } from '@duckdb/node-api';
import { canonicalJson } from '../../provenance/canonical-json.js';
import { runNotFound } from '../../provenance/run-exists.js';
import { ProvdError } from '../../shared/errors.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { list, readRows, sql } from '../../store/sql.js';
import { decodeCursorKey, encodeCursor, filterDigest, integerPart } from '../../telemetry/cursor.js';
import type { WindowLength } from '../../telemetry/window-deltas.js';
import { baselineOf, type Baseline, type BaselineList, type BaselineRow } from './baseline.js';
import { learnProfile, type BaselineProfile } from './baseline-profile.query.js';

/** Validated parameters of POST /v1/security/baselines. */
export interface LearnParams {
  name: string;
  /** Distinct run ids. */
  runs: string[];
  window_s: WindowLength;
}

/** Names one version of a baseline; a null version is the name's latest. */
export interface BaselineParams {
  name: string;
  version: number | null;
}

/** Validated parameters of one page of GET /v1/security/baselines. */
export interface BaselinesParams {
  name: string | null;
  limit: number;
  cursor: string | null;
}

/**
 * Learns a new version of `name` from its runs and stores it; call in the write queue, on the
 * writer, after the behaviour rollup caught up. 404 run_not_found names the first unknown run.
 */
export async function learnBaseline(connection: DuckDBConnection, params: LearnParams): Promise<Baseline> {
  const runs = [...params.runs].sort();
  const runList = list(runs, VARCHAR);
  const [unknown] = await readRows<{ run: string }>(
    connection,
    sql`SELECT run FROM (SELECT unnest(${runList}) AS run) WHERE run NOT IN (SELECT run_id FROM runs)
        ORDER BY run LIMIT 1`,
  );
  if (unknown !== undefined) throw runNotFound(unknown.run);
  const profile: BaselineProfile = await learnProfile(connection, runs, params.window_s);
  const text = canonicalJson(profile);
  const hash = 'sha256:' + createHash('sha256').update(text).digest('hex');
  const createdNs = BigInt(Date.now()) * 1_000_000n;
  const [row] = await readRows<BaselineRow>(
    connection,
    sql`INSERT INTO baselines
        SELECT ${params.name}, coalesce(max(version), 0) + 1, ${runList}, ${text}, ${hash}, ${createdNs}
        FROM baselines WHERE name = ${params.name}
        RETURNING *`,
  );
  return baselineOf(row!);
}

/** The stored row of a version (the latest without one), or null when there is none. */
export async function findBaseline(
  connection: DuckDBConnection,
  params: BaselineParams,
): Promise<BaselineRow | null> {
  const version = params.version === null ? sql`` : sql` AND version = ${params.version}`;
  const [row] = await readRows<BaselineRow>(
    connection,
    sql`SELECT * FROM baselines WHERE name = ${params.name}${version} ORDER BY version DESC LIMIT 1`,
  );
  return row ?? null;
}

/** The version of the most recently learned baseline's name (the latest without one), or null when none is learned. */
export async function findMostRecentBaseline(
  connection: DuckDBConnection,
  version: number | null,
): Promise<BaselineRow | null> {
  const [latest] = await readRows<{ name: string }>(
    connection,
    sql`SELECT name FROM baselines ORDER BY created_ns DESC, name, version DESC LIMIT 1`,
  );
  if (latest === undefined) {
    if (version === null) return null;
    throw noSuchBaseline(null, version);
  }
  return requireBaseline(connection, { name: latest.name, version });
}

/** The stored row of a version, or 404 saying which baseline or version is unknown. */
export async function requireBaseline(
  connection: DuckDBConnection,
  params: BaselineParams,
): Promise<BaselineRow> {
  const row = await findBaseline(connection, params);
  if (row === null) throw noSuchBaseline(params.name, params.version);
  return row;
}

/** GET /v1/security/baseline: one version, whole. */
export async function getBaseline(connection: DuckDBConnection, params: BaselineParams): Promise<Baseline> {
  return baselineOf(await requireBaseline(connection, params));
}

/** One page of the learned baselines: by name, the newest version first. */
export async function listBaselines(
  connection: DuckDBConnection,
  params: BaselinesParams,
  formatVersion: number,
): Promise<BaselineList> {
  const digest = filterDigest(['baselines', params.name]);
  const after = params.cursor === null ? null : decodeCursorKey(params.cursor, formatVersion, digest, 2);
  const position =
    after === null
      ? sql`TRUE`
      : sql`(name > ${after[0]!} OR (name = ${after[0]!} AND version < ${integerPart(after[1]!)}))`;
  const filter = params.name === null ? sql`TRUE` : sql`name = ${params.name}`;
  const rows = await readRows<SummaryRow>(
    connection,
    sql`SELECT name, version, len(runs) AS run_count, CAST(profile ->> '$.rates.window_s' AS UTINYINT) AS window_s,
          profile_sha256, created_ns FROM baselines
        WHERE ${filter} AND ${position} ORDER BY name, version DESC LIMIT ${params.limit + 1}`,
  );
  const page = rows.slice(0, params.limit);
  const hasMore = rows.length > params.limit;
  const last = page.at(-1);
  return {
    schema_version: 'provenance.baselines/v1',
    name: params.name,
    limit: params.limit,
    count: page.length,
    has_more: hasMore,
    next_cursor:
      hasMore && last !== undefined ? encodeCursor(formatVersion, digest, [last.name, last.version]) : null,
    baselines: page.map((row) => ({
      name: row.name,
      version: Number(row.version),
      run_count: Number(row.run_count),
      window_s: row.window_s,
      profile_sha256: row.profile_sha256,
      created_at: formatRfc3339Nanos(row.created_ns),
    })),
  };
}

/** A baselines row as a list reads it. */
interface SummaryRow {
  name: string;
  version: bigint;
  run_count: bigint;
  window_s: WindowLength;
  profile_sha256: string;
  created_ns: bigint;
}

/** The 404 for a baseline name, or a version of it, that was never learned. */
function noSuchBaseline(name: string | null, version: number | null): ProvdError {
  if (name === null)
    return new ProvdError('run_not_found', `no baseline is learned, so it has no version ${version}`);
  return new ProvdError(
    'run_not_found',
    version === null ? `no baseline "${name}" is learned` : `baseline "${name}" has no version ${version}`,
  );
}
