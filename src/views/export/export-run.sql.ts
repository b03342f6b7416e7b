/**
 * One run's bundle, written by the store actor inside one read snapshot: its events, graph
 * objects, chain heads, signed checkpoints and the artifacts they name as Parquet files, the
 * public keys of its checkpoints as keys.json, and manifest.json, in the run's Hive directory.
 * Its day is the UTC day of the run's first event (of its first object when it has no events).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { execute, raw, readRows, sql } from '../../store/sql.js';
import { exportedEventColumns, pathLiteral } from './export-columns.js';
import { bundleFiles, partitionDir } from './export-layout.js';
import type { StatementSigner } from '../../provenance/signing-key.js';
import { describeFiles, writeKeys, writeManifest } from './export-manifest.js';

/** The tables of a run bundle: file name and the SELECT over the store (the run is in `export_run`). */
const runTables: readonly [file: string, select: string][] = [
  // only events a sealed batch covers: one committed after the sealing round the export waited
  // for is left to the next export (and counted in the manifest), never shipped unsealed
  [
    bundleFiles.events,
    `SELECT ${exportedEventColumns} FROM events
     WHERE run_id = (SELECT run FROM export_run) AND seq < (SELECT sealed_to FROM export_run) ORDER BY seq`,
  ],
  [
    bundleFiles.objects,
    'SELECT hash, kind, run_id, chain_index, body, created_ns FROM objects WHERE run_id = (SELECT run FROM export_run) ORDER BY chain_index, hash',
  ],
  [
    bundleFiles.heads,
    'SELECT run_id, chain, hash, chain_index FROM run_heads WHERE run_id = (SELECT run FROM export_run) ORDER BY chain',
  ],
  [
    bundleFiles.checkpoints,
    'SELECT hash, run_id, chain_index, envelope, key_id, created_ns FROM checkpoints WHERE run_id = (SELECT run FROM export_run) ORDER BY chain_index',
  ],
  [
    bundleFiles.artifacts,
    `SELECT hash, content, size, truncated, created_ns FROM artifacts WHERE hash IN (
       SELECT json_extract_string(body, '$.payload.content_hash') FROM objects
       WHERE run_id = (SELECT run FROM export_run) AND kind = 'artifact') ORDER BY hash`,
  ],
];

/** Writes run `run`'s bundle under `root`, its manifest signed by `signer`; returns its files' paths, relative to `root`. */
export async function exportRun(
  connection: StoreConnection,
  root: string,
  host: string,
  run: string,
  signer: StatementSigner,
): Promise<string[]> {
  await requireRun(connection, run);
  await execute(
    connection,
    sql`CREATE TEMP TABLE export_run AS SELECT ${run}::VARCHAR AS run, coalesce((SELECT max(seq_to) FROM event_batches
          WHERE run_id = ${run} AND object_hash IS NOT NULL), 0) AS sealed_to`,
  );
  const [span] = await readRows<{
    first: bigint | null;
    last: bigint | null;
    created: bigint | null;
    root: string | null;
    total: bigint;
  }>(
    connection,
    sql`SELECT (SELECT min(time_ns) FROM events WHERE run_id = ${run} AND seq < (SELECT sealed_to FROM export_run)) AS first,
          (SELECT max(time_ns) FROM events WHERE run_id = ${run} AND seq < (SELECT sealed_to FROM export_run)) AS last,
          (SELECT min(created_ns) FROM objects WHERE run_id = ${run}) AS created,
          (SELECT object_hash FROM runs WHERE run_id = ${run}) AS root,
          (SELECT count(*) FROM events WHERE run_id = ${run}) AS total`,
  );
  const dayNs = span?.first ?? span?.created ?? BigInt(Date.now()) * 1_000_000n;
  const relative = partitionDir(host, formatRfc3339Nanos(dayNs).slice(0, 10), run);
  const dir = join(root, relative);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rows = new Map<string, number>();
  for (const [file, select] of runTables) {
    const target = raw(pathLiteral(join(dir, file)));
    const result = await execute(connection, sql`COPY (${raw(select)}) TO ${target} (FORMAT parquet)`);
    rows.set(file, Number(result.rowsChanged));
  }
  const keys = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys
        WHERE key_id IN (SELECT key_id FROM checkpoints WHERE run_id = ${run}) ORDER BY created_ns`,
  );
  writeKeys(dir, keys, signer);
  rows.set(bundleFiles.keys, 0);
  const objects = await readRows<{ hash: string }>(
    connection,
    sql`SELECT hash FROM objects WHERE run_id = ${run} ORDER BY chain_index, hash`,
  );
  const files = describeFiles(dir, rows);
  const signed = writeManifest(
    dir,
    {
      schema_version: 'provenance.export_manifest/v1',
      scope: 'run',
      host,
      directory: relative,
      run,
      time_range: {
        from: span?.first == null ? null : formatRfc3339Nanos(span.first),
        to: span?.last == null ? null : formatRfc3339Nanos(span.last),
      },
      exported_at: formatRfc3339Nanos(BigInt(Date.now()) * 1_000_000n),
      run_object_hash: span?.root ?? null,
      unsealed_events: Number(span?.total ?? 0n) - (rows.get(bundleFiles.events) ?? 0),
      files,
      objects: objects.map((object) => object.hash),
    },
    signer,
  );
  return [...files.map((file) => file.path), ...signed].map((name) => `${relative}/${name}`);
}
