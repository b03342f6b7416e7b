/** The store actor's half of the readiness check: one pass over the database, reported as found. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { toErrorData } from '../shared/errors.js';
import type { StoreHealthReport } from '../shared/store-messages.js';
import type { Migration } from './migrations.js';
import type { SpoolStats } from './spool.js';
import { inspectFormat, listTables, requiredTables } from './store-format.js';

/** Queries tables, store format and recorded coverage gaps; a failing query becomes `database.ok=false`. */
export async function checkStoreHealth(
  connection: DuckDBConnection,
  migrations: Migration[],
  spoolStats: SpoolStats | null,
): Promise<StoreHealthReport> {
  const started = performance.now();
  const supported = migrations.length;
  try {
    const tables = await listTables(connection);
    const verdict = await inspectFormat(connection, migrations, tables);
    const compatible = verdict.kind === 'compatible' && verdict.pending.length === 0;
    const format: StoreHealthReport['format'] = {
      found: verdict.kind === 'empty' ? null : verdict.version,
      supported,
      compatible,
    };
    if (verdict.kind === 'incompatible') format.reason = verdict.reason;
    if (verdict.kind === 'empty') format.reason = 'the database holds no provd schema';
    if (verdict.kind === 'compatible' && !compatible)
      format.reason = `${verdict.pending.length} migrations not applied`;

    let coverageGaps: number | null = null;
    if (tables.includes('coverage_gaps')) {
      const reader = await connection.runAndReadAll('SELECT count(*) AS n FROM coverage_gaps');
      coverageGaps = Number(reader.getRowObjectsJS()[0]?.['n'] ?? 0);
    }
    const usable = compatible && tables.includes('events');
    const spool = usable ? spoolStats : null;
    const seen = usable
      ? (await connection.runAndReadAll('SELECT 1 FROM events LIMIT 1')).currentRowCount > 0
      : null;
    return {
      database: { ok: true, latency_ms: elapsedMs(started) },
      format,
      missing_tables: requiredTables.filter((table) => !tables.includes(table)),
      coverage_gaps: coverageGaps,
      spool,
      events_seen: seen,
    };
  } catch (error) {
    return {
      database: {
        ok: false,
        latency_ms: elapsedMs(started),
        error: toErrorData(error, 'PROVD_ERR_STORE_QUERY'),
      },
      format: { found: null, supported, compatible: false },
      missing_tables: [],
      coverage_gaps: null,
      spool: null,
      events_seen: null,
    };
  }
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
