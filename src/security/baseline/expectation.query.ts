/**
 * What a baseline version's deviations are measured against, read in the store actor in one query
 * and without its whole profile: its identity, its rates, and per set measure the few most common
 * values and how many it holds. The values themselves stay in baseline_values, which the deviations
 * query joins.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../../shared/errors.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { maxExpectedShown, setMeasures } from './baseline-measures.js';
import type { BaselineProfile } from './baseline-profile.query.js';
import { noSuchBaseline } from './baselines.query.js';
import type { Expectation } from './deviation.js';

// each set measure's `distinct` and `truncated`, read from the profile in one parse
const factPaths = `[${setMeasures.map((m) => `'$.${m}.distinct', '$.${m}.truncated'`).join(', ')}]`;

/** The stored facts an expectation is made of. */
interface ExpectationRow {
  name: string;
  version: bigint;
  runs: string[];
  profile_sha256: string;
  created_ns: bigint;
  rates: string;
  facts: string[];
  shown: { measure: number; value: string }[];
}

/**
 * The expectation of version `version` of `name` (its latest when null; with a null name, of the
 * most recently learned baseline's name), or null when no baseline is learned and none was named;
 * else 404 saying which baseline or version was never learned.
 */
export async function readExpectation(
  connection: DuckDBConnection,
  name: string | null,
  version: number | null,
): Promise<Expectation | null> {
  const named =
    name === null ? sql`(SELECT name FROM baselines ORDER BY created_ns DESC, name LIMIT 1)` : sql`${name}`;
  const versioned = version === null ? sql`` : sql` AND version = ${version}`;
  const [row] = await readRows<ExpectationRow>(
    connection,
    sql`SELECT name, version, runs, profile_sha256, created_ns, CAST(profile -> '$.rates' AS VARCHAR) AS rates,
          json_extract_string(profile, ${raw(factPaths)}) AS facts,
          (SELECT coalesce(list(struct_pack(measure, value) ORDER BY measure, rank), []) FROM baseline_values v
           WHERE v.name = b.name AND v.version = b.version AND rank <= ${maxExpectedShown}) AS shown
        FROM baselines b WHERE name = ${named}${versioned} ORDER BY version DESC LIMIT 1`,
  );
  if (row === undefined) {
    if (name !== null) throw noSuchBaseline(name, version);
    if (version === null) return null;
    const [latest] = await readRows<{ name: string }>(connection, sql`SELECT ${named} AS name`);
    if (latest?.name != null) throw noSuchBaseline(latest.name, version);
    throw new ProvdError('run_not_found', `no baseline is learned, so it has no version ${version}`);
  }
  const sets = Object.fromEntries(
    setMeasures.map((measure, code) => [
      measure,
      {
        kind: 'values' as const,
        values: row.shown.filter((value) => value.measure === code).map((value) => value.value),
        distinct: Number(row.facts[2 * code]),
        truncated: row.facts[2 * code + 1] === 'true',
      },
    ]),
  ) as Expectation['sets'];
  return {
    name: row.name,
    version: Number(row.version),
    runs: row.runs,
    profile_sha256: row.profile_sha256,
    created_ns: row.created_ns,
    rates: JSON.parse(row.rates) as BaselineProfile['rates'],
    sets,
  };
}
