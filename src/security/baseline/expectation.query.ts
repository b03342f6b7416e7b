/**
 * What a baseline version's deviations are measured against, read in the store actor without its
 * whole profile: its identity, its rates, and per set measure the few most common values and how
 * many it holds. The values themselves stay in baseline_values, which the deviations query joins.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { raw, readRows, sql } from '../../store/sql.js';
import { maxExpectedShown, setMeasures } from './baseline-measures.js';
import type { BaselineProfile } from './baseline-profile.query.js';
import type { BaselineKey } from './baselines.query.js';
import type { Expectation } from './deviation.js';

// each set measure's `distinct` and `truncated`, read from the profile in one parse
const factPaths = `[${setMeasures.map((m) => `'$.${m}.distinct', '$.${m}.truncated'`).join(', ')}]`;

/** The expectation of a version that exists. */
export async function readExpectation(connection: DuckDBConnection, key: BaselineKey): Promise<Expectation> {
  const [row] = await readRows<{
    runs: string[];
    profile_sha256: string;
    created_ns: bigint;
    rates: string;
    facts: string[];
  }>(
    connection,
    sql`SELECT runs, profile_sha256, created_ns, CAST(profile -> '$.rates' AS VARCHAR) AS rates,
          json_extract_string(profile, ${raw(factPaths)}) AS facts
        FROM baselines WHERE name = ${key.name} AND version = ${key.version}`,
  );
  const shown = await readRows<{ measure: number; value: string }>(
    connection,
    sql`SELECT measure, value FROM baseline_values
        WHERE name = ${key.name} AND version = ${key.version} AND rank <= ${maxExpectedShown}
        ORDER BY measure, rank`,
  );
  const { runs, profile_sha256: profileSha256, created_ns: createdNs, rates, facts } = row!;
  const sets = Object.fromEntries(
    setMeasures.map((measure, code) => [
      measure,
      {
        kind: 'values' as const,
        values: shown.filter((value) => value.measure === code).map((value) => value.value),
        distinct: Number(facts[2 * code]),
        truncated: facts[2 * code + 1] === 'true',
      },
    ]),
  ) as Expectation['sets'];
  return {
    name: key.name,
    version: Number(key.version),
    runs,
    profile_sha256: profileSha256,
    created_ns: createdNs,
    rates: JSON.parse(rates) as BaselineProfile['rates'],
    sets,
  };
}
