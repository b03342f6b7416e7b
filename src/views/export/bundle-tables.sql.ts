/**
 * An export bundle loaded into an in-memory DuckDB under the store's own table names, so verify's
 * queries (provenance/verify.sql.ts) run over it unchanged: no provd store file, no daemon.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { eventFields, type EventField } from '../../model/event-fields.js';
import type { StoreConnection } from '../../store/store-connection.js';
import { execute, raw, sql } from '../../store/sql.js';
import { readRegularFile } from './bundle-files.js';
import { pathLiteral } from './export-columns.js';
import { bundleFiles } from './export-layout.js';
import type { ExportManifest } from './export-manifest.js';

/** The most of keys.json read: a few PEMs. */
const maxKeysBytes = 1024 * 1024;

/** Store table name, bundle file, and the columns kept (the export adds names an events row does not store). */
const tables: readonly [table: string, file: string, select: string][] = [
  [
    'events',
    bundleFiles.events,
    '* EXCLUDE (type_name, source_name, evidence_level_name, correlation_method, event_time)',
  ],
  ['objects', bundleFiles.objects, '*'],
  ['run_heads', bundleFiles.heads, '*'],
  ['checkpoints', bundleFiles.checkpoints, '*'],
  ['artifacts', bundleFiles.artifacts, '*'],
];

/** The public key PEMs verify trusts, by key id (`sha256:<hex>` of the SPKI DER, as the store names them). */
export function keyOf(pem: string): [keyId: string, pem: string] {
  const key = createPublicKey(pem);
  const der = key.export({ type: 'spki', format: 'der' });
  const spkiPem = key.export({ type: 'spki', format: 'pem' }).toString();
  return [`sha256:${createHash('sha256').update(der).digest('hex')}`, spkiPem];
}

/**
 * The keys of keys.json (`provenance.keys/v1`), by key id; ids are recomputed from the PEMs. A
 * missing, linked or malformed file, or an entry that is not a public key, gives no key.
 */
export function bundledKeys(dir: string): Map<string, string> {
  const keys = new Map<string, string>();
  let entries: unknown;
  try {
    entries = (
      JSON.parse(readRegularFile(join(dir, bundleFiles.keys), maxKeysBytes).toString('utf8')) as {
        keys?: unknown;
      }
    ).keys;
  } catch {
    return keys;
  }
  for (const entry of Array.isArray(entries) ? (entries as { public_key_pem?: unknown }[]) : []) {
    if (typeof entry?.public_key_pem !== 'string') continue;
    try {
      const [keyId, pem] = keyOf(entry.public_key_pem);
      keys.set(keyId, pem);
    } catch {
      // not a public key: it verifies nothing
    }
  }
  return keys;
}

/** Loads the events of a bundle alone (a range export). */
export async function loadEvents(connection: StoreConnection, dir: string): Promise<void> {
  const [table, file, select] = tables[0]!;
  await loadTable(connection, table, join(dir, file), select);
  await addLaterFacts(connection);
}

/**
 * The facts added to the record after a bundle was written (event-fields.ts: `when_set`), as null
 * columns: its events were hashed without them, and verify reads every fact's column.
 */
async function addLaterFacts(connection: StoreConnection): Promise<void> {
  for (const field of eventFields.filter((fact: EventField) => fact.content === 'when_set'))
    await execute(
      connection,
      sql`ALTER TABLE events ADD COLUMN IF NOT EXISTS ${raw(field.key)} ${raw(field.sqlType)}`,
    );
}

/** Loads a run bundle: its tables, its run row from the manifest, and `keys` as the store's signing keys. */
export async function loadRunBundle(
  connection: StoreConnection,
  dir: string,
  manifest: ExportManifest,
  keys: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [table, file, select] of tables) await loadTable(connection, table, join(dir, file), select);
  await addLaterFacts(connection);
  await execute(
    connection,
    sql`CREATE TABLE runs AS SELECT ${manifest.run}::VARCHAR AS run_id, ${manifest.run_object_hash}::VARCHAR AS object_hash`,
  );
  await execute(
    connection,
    sql`CREATE TABLE signing_keys (key_id VARCHAR, public_key_pem VARCHAR, created_ns BIGINT)`,
  );
  for (const [keyId, pem] of keys)
    await execute(connection, sql`INSERT INTO signing_keys VALUES (${keyId}, ${pem}, 0)`);
  // a bundle holds sealed batches only: no digest waits for a seal, so nothing counts as pending
  await execute(
    connection,
    sql`CREATE TABLE event_batches (run_id VARCHAR, object_hash VARCHAR, seq_from BIGINT, seq_to BIGINT, committed_ns BIGINT)`,
  );
}

async function loadTable(
  connection: StoreConnection,
  table: string,
  path: string,
  select: string,
): Promise<void> {
  await execute(
    connection,
    sql`CREATE TABLE ${raw(table)} AS SELECT ${raw(select)} FROM read_parquet(${raw(pathLiteral(path))}, hive_partitioning = false)`,
  );
}
