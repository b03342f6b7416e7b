/**
 * `provd verify --bundle`: checks an exported bundle with nothing but its files and a key. First
 * the signed manifest (manifest.dsse.json under the trusted key), which alone says what the bundle
 * is (scope, run, host, directory, files); then its directory and files against it, each file
 * copied as it is hashed into a private staging directory; then those copies are loaded into an
 * in-memory DuckDB and verify's own checks run over them (every event hash, every batch's count
 * and Merkle root, every object hash and chain link, every checkpoint signature under the same
 * trusted key). The answer is a VerifyResult, as GET /v1/graph/verify gives.
 */
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { StoreConnection } from '../../store/store-connection.js';
import { withMemoryDatabase } from '../../store/memory-database.js';
import { VerifyIssues } from '../../provenance/verify-issues.js';
import type { VerifyResult } from '../../provenance/verify-result.js';
import { verifyRun } from '../../provenance/verify.sql.js';
import { readRows, raw, sql } from '../../store/sql.js';
import {
  rehashStoredEvent,
  storedEventColumns,
  storedEventContentSql,
} from '../../telemetry/stored-event-hash.js';
import { readSignedManifest } from './bundle-manifest.js';
import { checkDirectory, stageBundle } from './bundle-stage.js';
import { bundledKeys, loadEvents, loadRunBundle } from './bundle-tables.sql.js';

/** How an event is rehashed from its row: the telemetry domain's recipe, as the daemon's verify uses. */
const eventRecheck = {
  columns: storedEventColumns,
  contentSql: storedEventContentSql,
  rehash: rehashStoredEvent,
};

/**
 * The keys a bundle's signatures must verify under: `pinned` (from --key: a key the user holds),
 * else the bundle's own keys.json, which whoever wrote the bundle chose: an error unless
 * `trustBundleKey` accepts that, and then a warning saying so.
 */
export interface BundleTrust {
  pinned?: ReadonlyMap<string, string>;
  trustBundleKey?: boolean;
}

/** Verifies the bundle in `dir` under `trust`. */
export async function verifyBundle(dir: string, trust: BundleTrust): Promise<VerifyResult> {
  const issues = new VerifyIssues();
  const keys = trust.pinned ?? bundledKeys(dir);
  const signed = readSignedManifest(dir, keys, issues);
  if (signed === undefined) return resultOf(basename(dir), issues, null);
  const { manifest, keyId } = signed;
  const runId = manifest.run ?? '_none';
  if (trust.pinned === undefined) reportUnpinned(keyId, trust.trustBundleKey === true, issues);
  checkDirectory(dir, manifest, issues);
  const staged = stageBundle(dir, manifest, issues);
  if (staged === undefined) return resultOf(runId, issues, null);
  try {
    return await withMemoryDatabase(async (connection) => {
      if (manifest.scope === 'range') {
        await loadEvents(connection, staged);
        await checkEventHashes(connection, issues);
        issues.warning(
          'bundle_events_only',
          runId,
          'a range export: batches, objects and checkpoints are not in it',
        );
        return resultOf(runId, issues, null);
      }
      // the checkpoints, like the manifest, must be signed by a trusted key
      await loadRunBundle(connection, staged, manifest, trust.pinned ?? bundledKeys(staged));
      // a bundle holds only sealed events, so no event counts as pending a seal (sealedAt: the epoch)
      const graph = await verifyRun(connection, { run: runId }, eventRecheck, [], 0n);
      return resultOf(runId, issues, graph);
    });
  } finally {
    rmSync(staged, { recursive: true, force: true });
  }
}

/** The files under `root` in partition directories that no bundle holds, as one failed result. */
export function unbundledFiles(root: string, paths: readonly string[]): VerifyResult {
  const issues = new VerifyIssues();
  for (const path of paths)
    issues.error(
      'bundle_file_unlisted',
      path,
      'in a host=/date=/run= tree, in no bundle: no signed manifest lists it, yet a query over the tree reads it',
    );
  return resultOf(basename(root), issues, null);
}

/** Without --key, says that the signer is the bundle's own key: an error unless the user accepted that. */
function reportUnpinned(keyId: string, accepted: boolean, issues: VerifyIssues): void {
  const why = `signed by ${keyId}, a key of the bundle's own keys.json: whoever wrote the bundle chose it`;
  if (accepted) issues.warning('bundle_signer_unpinned', keyId, `${why} (accepted by --trust-bundle-key)`);
  else
    issues.error(
      'bundle_signer_unpinned',
      keyId,
      `the signer was not checked: ${why}; give --key with the daemon's public key, or --trust-bundle-key`,
    );
}

/** Events whose stored facts do not hash to their stored hash (DuckDB first, then exactly in JS). */
async function checkEventHashes(connection: StoreConnection, issues: VerifyIssues): Promise<void> {
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
