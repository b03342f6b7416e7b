/** The store actor's half of the readiness check: one pass over the database, reported as found. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ErrorData } from '../shared/errors.js';
import type { QuerySpec } from '../shared/store-protocol.js';
import type { Migration } from './migrations.sql.js';
import { classifyStoreError } from './store-error.js';
import type { HealthFacts } from './store-module.js';
import { inspectFormat, listTables, requiredTables } from './store-format.js';

/** The store actor's half of a readiness check: what it found in the database, without judging it. */
export interface StoreHealthReport extends HealthFacts {
  database: { ok: boolean; latency_ms: number; error?: ErrorData };
  format: { found: number | null; supported: number; compatible: boolean; reason?: string };
  missing_tables: string[];
  /** Rows in coverage_gaps, or null when the table could not be read. */
  coverage_gaps: number | null;
}

/** The store's own query kinds. */
export type StoreKinds = {
  health: QuerySpec<Record<string, never>, StoreHealthReport>;
};

/**
 * Queries tables, store format and recorded coverage gaps, and asks `facts` for the domains' part
 * once the store is usable; a failing query becomes `database.ok=false`.
 */
export async function checkStoreHealth(
  connection: DuckDBConnection,
  migrations: Migration[],
  facts: (connection: DuckDBConnection) => Promise<Partial<HealthFacts>>,
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
    const missing = requiredTables.filter((table) => !tables.includes(table));
    const found = compatible && missing.length === 0 ? await facts(connection) : {};
    return {
      database: { ok: true, latency_ms: elapsedMs(started) },
      format,
      missing_tables: missing,
      coverage_gaps: coverageGaps,
      spool: found.spool ?? null,
      events_seen: found.events_seen ?? null,
    };
  } catch (error) {
    return {
      database: {
        ok: false,
        latency_ms: elapsedMs(started),
        error: classifyStoreError(error),
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
