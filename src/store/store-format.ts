/**
 * Reads the store format of an open database and judges it against this build's migrations,
 * without writing anything: an incompatible database must be left exactly as found.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Migration } from './migrations.sql.js';

/** Tables a usable store must hold; a missing one makes health answer 503. */
export const requiredTables = [
  'store_format',
  'coverage_gaps',
  'runs',
  'bindings',
  'events',
  'windows',
  'event_batches',
  'producer_counters',
  'ingest_requests',
  'objects',
  'run_heads',
  'tool_calls',
  'artifacts',
  'checkpoints',
  'signing_keys',
  'verify_results',
  'settled_ranges',
  'timeline_processes',
  'timeline_process_types',
  'timeline_rollup_mark',
  'policy_decisions',
  'enforcements',
  'run_behaviour',
  'run_rates',
  'baselines',
  'baseline_values',
  'run_signal_values',
  'run_llm_usage',
  'host_chain',
  'otlp_cursor',
  'otlp_tool_calls',
] as const;

/** What a database is, relative to this build. */
export type FormatVerdict =
  | { kind: 'empty' }
  | { kind: 'compatible'; version: number; pending: Migration[] }
  | { kind: 'incompatible'; version: number | null; reason: string };

/** Names of the tables in the main schema of the connection's database. */
export async function listTables(connection: DuckDBConnection): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
  );
  return reader.getRowObjectsJS().map((row) => row['table_name'] as string);
}

/** Compares the recorded store_format rows with the migrations this build ships. */
export async function inspectFormat(
  connection: DuckDBConnection,
  migrations: Migration[],
  tables: string[],
): Promise<FormatVerdict> {
  if (tables.length === 0) return { kind: 'empty' };
  if (!tables.includes('store_format')) {
    return {
      kind: 'incompatible',
      version: null,
      reason: 'the database has tables but no store_format: not a provd store',
    };
  }
  const reader = await connection.runAndReadAll(
    'SELECT version, checksum FROM store_format ORDER BY version',
  );
  const rows = reader
    .getRowObjectsJS()
    .map((row) => ({ version: Number(row['version']), checksum: row['checksum'] as string }));
  const version = rows.length === 0 ? null : Math.max(...rows.map((row) => row.version));
  if (version === null) return { kind: 'incompatible', version, reason: 'store_format is empty' };
  if (version > migrations.length) {
    return {
      kind: 'incompatible',
      version,
      reason: `store format ${version} is newer than this build supports (${migrations.length})`,
    };
  }
  for (const [index, row] of rows.entries()) {
    const migration = migrations[row.version - 1];
    if (row.version !== index + 1 || migration === undefined) {
      return {
        kind: 'incompatible',
        version,
        reason: `store_format has a gap or duplicate at version ${row.version}`,
      };
    }
    if (migration.checksum !== row.checksum) {
      return {
        kind: 'incompatible',
        version,
        reason: `migration ${row.version} (${migration.name}) was applied from a different file than this build ships`,
      };
    }
  }
  return { kind: 'compatible', version, pending: migrations.slice(version) };
}
