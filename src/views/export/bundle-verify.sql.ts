/**
 * `provd verify --bundle`: checks an exported run with nothing but its files. The manifest's file
 * hashes and row counts first; then the bundle is loaded into an in-memory DuckDB and verify's own
 * checks run over it (every event hash, every batch's count and Merkle root, every object hash and
 * chain link, every checkpoint signature under the bundled key or the one given). The answer is a
 * VerifyResult, as GET /v1/graph/verify gives.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { withMemoryDatabase } from '../../store/memory-database.js';
import typia from 'typia';
import { VerifyIssues } from '../../provenance/verify-issues.js';
import type { VerifyResult } from '../../provenance/verify-result.js';
import { verifyRun } from '../../provenance/verify.sql.js';
import { readRows, raw, sql } from '../../store/sql.js';
import {
  rehashStoredEvent,
  storedEventColumns,
  storedEventContentSql,
} from '../../telemetry/stored-event-hash.js';
import { bundledKeys, loadEvents, loadRunBundle } from './bundle-tables.sql.js';
import { bundleFiles } from './export-layout.js';
import { fileDigest, type ExportManifest } from './export-manifest.js';

/** How an event is rehashed from its row: the telemetry domain's recipe, as the daemon's verify uses. */
const eventRecheck = {
  columns: storedEventColumns,
  contentSql: storedEventContentSql,
  rehash: rehashStoredEvent,
};

/** Verifies the bundle in `dir`; with `keys`, checkpoints must be signed by one of them (not the bundled ones). */
export async function verifyBundle(dir: string, keys?: ReadonlyMap<string, string>): Promise<VerifyResult> {
  const issues = new VerifyIssues();
  const manifest = readManifest(dir, issues);
  if (manifest === undefined) return resultOf(basename(dir), issues, null);
  const intact = checkFiles(dir, manifest, issues);
  const runId = manifest.run ?? '_none';
  if (!intact) return resultOf(runId, issues, null);
  return withMemoryDatabase(async (connection) => {
    if (manifest.scope === 'range') {
      await loadEvents(connection, dir);
      await checkEventHashes(connection, issues);
      issues.warning(
        'bundle_events_only',
        runId,
        'a range export: batches, objects and checkpoints are not in it',
      );
      return resultOf(runId, issues, null);
    }
    await loadRunBundle(connection, dir, manifest, keys ?? bundledKeys(dir));
    // a bundle holds only sealed events, so no event counts as pending a seal (sealedAt: the epoch)
    const graph = await verifyRun(connection, { run: runId }, eventRecheck, [], 0n);
    return resultOf(runId, issues, graph);
  });
}

function readManifest(dir: string, issues: VerifyIssues): ExportManifest | undefined {
  const path = join(dir, bundleFiles.manifest);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    issues.error('bundle_manifest_invalid', path, 'manifest.json is missing or not JSON');
    return undefined;
  }
  if (typia.is<ExportManifest>(manifest)) return manifest;
  issues.error('bundle_manifest_invalid', path, 'manifest.json is not a provenance.export_manifest/v1 body');
  return undefined;
}

/** Checks every listed file's presence and digest, and that nothing unlisted sits beside them; true when all hold. */
function checkFiles(dir: string, manifest: ExportManifest, issues: VerifyIssues): boolean {
  const before = issues.errors;
  const listed = new Set(manifest.files.map((file) => file.path));
  for (const file of manifest.files) {
    const path = join(dir, file.path);
    // a manifest could name a path outside its directory: only plain names of this directory count
    if (file.path.includes('/') || file.path.startsWith('.') || !existsSync(path)) {
      issues.error('bundle_file_missing', file.path, 'listed in manifest.json, not in the bundle');
    } else if (fileDigest(path) !== file.sha256) {
      issues.error('bundle_file_mismatch', file.path, `its bytes do not hash to ${file.sha256}`);
    }
  }
  for (const name of readdirSync(dir)) {
    if (name !== bundleFiles.manifest && !listed.has(name) && !name.includes('='))
      issues.error('bundle_file_unlisted', name, 'in the bundle, not in manifest.json');
  }
  const required = manifest.scope === 'run' ? Object.values(bundleFiles) : [bundleFiles.events];
  for (const name of required)
    if (name !== bundleFiles.manifest && !listed.has(name))
      issues.error(
        'bundle_file_missing',
        name,
        `a ${manifest.scope} bundle needs it; manifest.json does not list it`,
      );
  return issues.errors === before;
}

/** Events whose stored facts do not hash to their stored hash (DuckDB first, then exactly in JS). */
async function checkEventHashes(connection: DuckDBConnection, issues: VerifyIssues): Promise<void> {
  const suspects = await readRows<{ id: string; hash: string }>(
    connection,
    sql`SELECT id, hash, ${raw(storedEventColumns)} FROM events
        WHERE 'sha256:' || sha256(${raw(storedEventContentSql)}) IS DISTINCT FROM hash ORDER BY seq`,
  );
  for (const row of suspects)
    if (rehashStoredEvent(row as never) !== row.hash)
      issues.error('event_hash_mismatch', row.id, 'its stored facts do not hash to its stored hash');
}

/** The bundle's own issues, then verify's. */
function resultOf(runId: string, issues: VerifyIssues, graph: VerifyResult | null): VerifyResult {
  const errors = issues.errors + (graph?.error_count ?? 0);
  const warnings = issues.warnings + (graph?.warning_count ?? 0);
  return {
    schema_version: 'provenance.verify/v1',
    run_id: runId,
    status: errors > 0 ? 'failed' : 'ok',
    issue_count: errors + warnings,
    error_count: errors,
    warning_count: warnings,
    issues: [...issues.listed, ...(graph?.issues ?? [])],
  };
}
