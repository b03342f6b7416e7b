/**
 * Learned baselines in the store actor: learning a new version (a write), naming a version (the
 * latest of a name, or of the most recently learned name), reading one whole, and paging the list.
 * A version is never changed or removed once learned.
 */
import { createHash } from 'node:crypto';
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, UTINYINT, VARCHAR } from '../../store/duckdb-api.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { runNotFound } from '../../store/run-exists.sql.js';
import { ProvdError } from '../../shared/errors.js';
import { execute, inTransaction, list, readRows, sql, unnested } from '../../store/sql.js';
import type { WindowLength } from '../../telemetry/window-facts.js';
import { setMeasures } from './baseline-measures.js';
import { learnProfile, type BaselineProfile } from './baseline-profile.sql.js';
import { baselineOf, type Baseline, type BaselineRow } from './baseline.js';
import { summarizeProfile } from './deviation.js';

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

/** A version that exists. */
export interface BaselineKey {
  name: string;
  version: bigint;
}

/**
 * Learns a new version of `name` from its runs and stores it with its values, in one transaction;
 * call in the write queue, on the writer, after the behaviour rollup caught up. 404 run_not_found
 * names the first unknown run.
 */
export async function learnBaseline(connection: StoreConnection, params: LearnParams): Promise<Baseline> {
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
  const expected = JSON.stringify(summarizeProfile(profile));
  const createdNs = BigInt(Date.now()) * 1_000_000n;
  const values = setMeasures.flatMap((measure, code) =>
    profile[measure].values.map((entry, index) => [code, BigInt(index + 1), entry.value] as const),
  );
  return inTransaction(connection, async () => {
    const [row] = await readRows<BaselineRow>(
      connection,
      sql`INSERT INTO baselines
          SELECT ${params.name}, coalesce(max(version), 0) + 1, ${runList}, ${text}, ${hash}, ${expected}, ${createdNs}
          FROM baselines WHERE name = ${params.name}
          RETURNING *`,
    );
    await execute(
      connection,
      sql`INSERT INTO baseline_values SELECT ${params.name}, ${row!.version}, ${unnested(
        [values.map(([code]) => code), UTINYINT],
        [values.map(([, rank]) => rank), BIGINT],
        [values.map(([, , value]) => value), VARCHAR],
      )}`,
    );
    return baselineOf(row!);
  });
}

/** The version named (the latest without one), or 404 saying which baseline or version is unknown. */
export async function requireBaseline(
  connection: StoreConnection,
  params: BaselineParams,
): Promise<BaselineKey> {
  const version = params.version === null ? sql`` : sql` AND version = ${params.version}`;
  const [key] = await readRows<BaselineKey>(
    connection,
    sql`SELECT name, version FROM baselines WHERE name = ${params.name}${version}
        ORDER BY version DESC LIMIT 1`,
  );
  if (key === undefined) throw noSuchBaseline(params.name, params.version);
  return key;
}

/** GET /v1/security/baseline: one version, whole. */
export async function getBaseline(connection: StoreConnection, params: BaselineParams): Promise<Baseline> {
  const key = await requireBaseline(connection, params);
  const [row] = await readRows<BaselineRow>(
    connection,
    sql`SELECT * FROM baselines WHERE name = ${key.name} AND version = ${key.version}`,
  );
  return baselineOf(row!);
}

/** The 404 for a baseline name, or a version of it, that was never learned. */
export function noSuchBaseline(name: string, version: number | null): ProvdError {
  return new ProvdError(
    'not_found',
    version === null ? `no baseline "${name}" is learned` : `baseline "${name}" has no version ${version}`,
  );
}
