/** GET /v1/security/baselines in the store actor: one keyset page of the learned versions. */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { readRows, sql } from '../../store/sql.js';
import { integerPart } from '../../model/cursor.js';
import type { WindowLength } from '../../telemetry/window-facts.js';
import type { BaselineList } from './baseline.js';
import { keysetPage } from '../../store/keyset-page.js';

/** Validated parameters of one page of GET /v1/security/baselines. */
export interface BaselinesParams {
  /** Only this name's versions; null for every name. */
  name: string | null;
  limit: number;
  cursor: string | null;
}

/** A baselines row as the list reads it: everything but the profile and the run ids. */
interface SummaryRow {
  name: string;
  version: bigint;
  run_count: bigint;
  window_s: WindowLength;
  profile_sha256: string;
  created_ns: bigint;
}

/** One page of the learned baselines: by name, the newest version first. */
export async function listBaselines(
  connection: StoreConnection,
  params: BaselinesParams,
  formatVersion: number,
): Promise<BaselineList> {
  const opened = await keysetPage(
    connection,
    { run: null, cursor: params.cursor },
    formatVersion,
    ['baselines', params.name],
    2,
  );
  const after = opened.after;
  const position =
    after === null
      ? sql`TRUE`
      : sql`(name > ${after[0]!} OR (name = ${after[0]!} AND version < ${integerPart(after[1]!)}))`;
  const filter = params.name === null ? sql`TRUE` : sql`name = ${params.name}`;
  const rows = await readRows<SummaryRow>(
    connection,
    sql`SELECT name, version, len(runs) AS run_count, CAST(expected ->> '$.rates.window_s' AS UTINYINT) AS window_s,
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
    next_cursor: hasMore && last !== undefined ? opened.next([last.name, last.version]) : null,
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
