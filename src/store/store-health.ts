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
  /** Recorded gaps by kind, with the events they lost (null when no gap says how many). */
  gaps_by_kind: { [kind: string]: { gaps: number; lost_events: number | null } };
  /** Records the sensor kept but cut (argv, paths past its limits): fidelity, not loss. */
  truncated_records: number;
  /** TLS plaintext captured but not readable as HTTP/1.x or HTTP/2 (another protocol): not loss. */
  tls_unparsed_messages: number;
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
    const gapsByKind: StoreHealthReport['gaps_by_kind'] = {};
    if (tables.includes('coverage_gaps')) {
      const reader = await connection.runAndReadAll(
        'SELECT kind, count(*) AS n, sum(lost_events) AS lost FROM coverage_gaps GROUP BY kind ORDER BY kind',
      );
      coverageGaps = 0;
      for (const row of reader.getRowObjectsJS()) {
        const lost = row['lost'] === null ? null : Number(row['lost']);
        gapsByKind[row['kind'] as string] = { gaps: Number(row['n']), lost_events: lost };
        coverageGaps += Number(row['n']);
      }
    }
    let truncated = 0;
    let unparsed = 0;
    if (tables.includes('producer_counters')) {
      const reader = await connection.runAndReadAll(
        `SELECT coalesce(sum(value) FILTER (WHERE counter = 'truncated'), 0) AS truncated,
           coalesce(sum(value) FILTER (WHERE counter = 'tls_unparsed_messages'), 0) AS unparsed
         FROM producer_counters WHERE counter IN ('truncated', 'tls_unparsed_messages')`,
      );
      const row = reader.getRowObjectsJS()[0];
      truncated = Number(row?.['truncated'] ?? 0);
      unparsed = Number(row?.['unparsed'] ?? 0);
    }
    const missing = requiredTables.filter((table) => !tables.includes(table));
    const found = compatible && missing.length === 0 ? await facts(connection) : {};
    return {
      database: { ok: true, latency_ms: elapsedMs(started) },
      format,
      missing_tables: missing,
      coverage_gaps: coverageGaps,
      gaps_by_kind: gapsByKind,
      truncated_records: truncated,
      tls_unparsed_messages: unparsed,
      spool: found.spool ?? null,
      events_seen: found.events_seen ?? null,
    };
  } catch (error) {
    return unreadStoreReport(
      { ok: false, latency_ms: elapsedMs(started), error: classifyStoreError(error) },
      supported,
    );
  }
}

/** The report when the database could not be read: only what was known before reading it. */
export function unreadStoreReport(
  database: StoreHealthReport['database'],
  supported: number,
): StoreHealthReport {
  return {
    database,
    format: { found: null, supported, compatible: false },
    missing_tables: [],
    coverage_gaps: null,
    gaps_by_kind: {},
    truncated_records: 0,
    tls_unparsed_messages: 0,
    spool: null,
    events_seen: null,
  };
}

function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
