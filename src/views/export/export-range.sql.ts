/**
 * The events captured in [from, to), written by the store actor inside one read snapshot, one
 * directory per run: a run's events go under the UTC day of its first event in the range; events
 * no run claimed go under `run=_none` of their own day. Each directory gets events.parquet and a
 * manifest (scope `range`): event hashes can be checked, batches cannot (a range cuts them).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { execute, raw, readRows, sql } from '../../store/sql.js';
import { eventDateSql, exportedEventColumns, pathLiteral } from './export-columns.js';
import { bundleFiles, partitionDir } from './export-layout.js';
import type { StatementSigner } from '../../provenance/signing-key.js';
import { describeFiles, writeKeys, writeManifest } from './export-manifest.js';

/** The instants of a range export, Unix ns, `from` inclusive and `to` exclusive. */
export interface ExportRange {
  fromNs: bigint;
  toNs: bigint;
}

/** The range's events and the day directory of each, in `export_events` (run, day, seq). */
const placeEvents = `CREATE TEMP TABLE export_events AS
  SELECT seq, run_id, CASE WHEN run_id IS NULL THEN ${eventDateSql}
    ELSE strftime(make_timestamp(min(time_ns) OVER (PARTITION BY run_id) // 1000), '%Y-%m-%d') END AS day
  FROM events WHERE time_ns >= (SELECT from_ns FROM export_range) AND time_ns < (SELECT to_ns FROM export_range)`;

/** Writes the range's events under `root`, each manifest signed by `signer`; returns the files' paths, relative to `root`. */
export async function exportRange(
  connection: StoreConnection,
  root: string,
  host: string,
  range: ExportRange,
  signer: StatementSigner,
): Promise<string[]> {
  await execute(
    connection,
    sql`CREATE TEMP TABLE export_range AS SELECT ${range.fromNs}::BIGINT AS from_ns, ${range.toNs}::BIGINT AS to_ns`,
  );
  await connection.run(placeEvents);
  const groups = await readRows<{ run_id: string | null; day: string }>(
    connection,
    sql`SELECT DISTINCT run_id, day FROM export_events ORDER BY day, run_id NULLS FIRST`,
  );
  const paths: string[] = [];
  await execute(connection, sql`CREATE TEMP TABLE export_group (run_id VARCHAR, day VARCHAR)`);
  for (const group of groups) {
    const relative = partitionDir(host, group.day, group.run_id);
    const dir = join(root, relative);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    await connection.run('DELETE FROM export_group');
    await execute(connection, sql`INSERT INTO export_group VALUES (${group.run_id}, ${group.day})`);
    const target = raw(pathLiteral(join(dir, bundleFiles.events)));
    const result = await execute(
      connection,
      sql`COPY (SELECT ${raw(exportedEventColumns)} FROM events WHERE seq IN (
            SELECT seq FROM export_events x, export_group g
            WHERE x.run_id IS NOT DISTINCT FROM g.run_id AND x.day = g.day) ORDER BY seq)
          TO ${target} (FORMAT parquet)`,
    );
    // the key that signs the manifest, so --trust-bundle-key has one to check it with
    writeKeys(dir, [], signer);
    const rows = new Map([
      [bundleFiles.events, Number(result.rowsChanged)],
      [bundleFiles.keys, 0],
    ]);
    const files = describeFiles(dir, rows);
    const signed = writeManifest(
      dir,
      {
        schema_version: 'provenance.export_manifest/v1',
        scope: 'range',
        host,
        directory: relative,
        run: group.run_id,
        time_range: { from: formatRfc3339Nanos(range.fromNs), to: formatRfc3339Nanos(range.toNs) },
        exported_at: formatRfc3339Nanos(BigInt(Date.now()) * 1_000_000n),
        run_object_hash: null,
        unsealed_events: 0,
        files,
        objects: [],
      },
      signer,
    );
    paths.push(...[...files.map((file) => file.path), ...signed].map((name) => `${relative}/${name}`));
  }
  return paths;
}
