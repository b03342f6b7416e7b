/**
 * What a baseline version's deviations are measured against, read in the store actor from its row
 * without its profile: its identity and the summary stored with it (per set measure the few most
 * common values and how many it holds, and its rates). The values themselves are in
 * baseline_values, which the deviations query joins.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { readRows, sql } from '../../store/sql.js';
import { noSuchBaseline } from './baselines.sql.js';
import type { ExpectedSummary, Expectation } from './deviation.js';

/** The stored facts an expectation is made of. */
interface ExpectationRow {
  name: string;
  version: bigint;
  runs: string[];
  profile_sha256: string;
  created_ns: bigint;
  expected: string;
}

/**
 * The expectation of version `version` of `name` (its latest when null; with a null name, of the
 * most recently learned baseline's name), or null when no baseline is learned and none was named;
 * else 404 saying which baseline or version was never learned.
 */
export async function readExpectation(
  connection: StoreConnection,
  name: string | null,
  version: number | null,
): Promise<Expectation | null> {
  const named =
    name === null ? sql`(SELECT name FROM baselines ORDER BY created_ns DESC, name LIMIT 1)` : sql`${name}`;
  const versioned = version === null ? sql`` : sql` AND version = ${version}`;
  const [row] = await readRows<ExpectationRow>(
    connection,
    sql`SELECT name, version, runs, profile_sha256, created_ns, expected
        FROM baselines WHERE name = ${named}${versioned} ORDER BY version DESC LIMIT 1`,
  );
  if (row === undefined) {
    if (name !== null) throw noSuchBaseline(name, version);
    if (version === null) return null;
    const [latest] = await readRows<{ name: string | null }>(connection, sql`SELECT ${named} AS name`);
    if (latest?.name != null) throw noSuchBaseline(latest.name, version);
    throw new ProvdError('not_found', `no baseline is learned, so it has no version ${version}`);
  }
  const { sets, rates } = JSON.parse(row.expected) as ExpectedSummary;
  return {
    name: row.name,
    version: Number(row.version),
    runs: row.runs,
    profile_sha256: row.profile_sha256,
    created_ns: row.created_ns,
    sets,
    rates,
  };
}
