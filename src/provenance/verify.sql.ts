/**
 * verify_run in the store actor: reads the run's objects, heads and events, and checks every hash
 * and link (verify-objects.ts, verify-events.sql.ts). A run nobody named is 404, never `ok`.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { execute, list, readRows, sql } from '../store/sql.js';
import { requireRun } from '../store/run-exists.sql.js';
import { verifyArtifacts } from './verify-artifacts.sql.js';
import { verifyEvents, type EventRecheck, type SealedBatch } from './verify-events.sql.js';
import { verifyCheckpoints, type CheckpointRow } from './verify-checkpoints.js';
import { VerifyIssues } from './verify-issues.js';
import { verifyObjects, type ObjectRow } from './verify-objects.js';
import { verifyResultOf, type VerifyResult } from './verify-result.js';

/** A check another domain adds to verify (the security domain's policy links): it reports into `issues`. */
export type RunCheck = (
  connection: StoreConnection,
  runId: string,
  batches: readonly SealedBatch[],
  issues: VerifyIssues,
) => Promise<void>;

/** The params of the `verify` store query. */
export interface VerifyParams {
  run: string;
}

/** Verifies one run: a VerifyResult, `ok` or `failed`. */
export async function verifyRun(
  connection: StoreConnection,
  params: VerifyParams,
  recheck: EventRecheck,
  runChecks: readonly RunCheck[] = [],
  /** When the run's due batches were sealed for this verify (Unix ns): events committed later are pending. */
  sealedAtNs: bigint = BigInt(Date.now()) * 1_000_000n,
): Promise<VerifyResult> {
  const runId = params.run;
  await requireRun(connection, runId);
  const issues = new VerifyIssues();
  const [run] = await readRows<{ object_hash: string | null }>(
    connection,
    sql`SELECT object_hash FROM runs WHERE run_id = ${runId}`,
  );
  const rows = await readRows<ObjectRow>(
    connection,
    sql`SELECT hash, kind, run_id, body FROM objects WHERE run_id = ${runId}`,
  );
  const heads = await readRows<{ chain: string; hash: string }>(
    connection,
    sql`SELECT chain, hash FROM run_heads WHERE run_id = ${runId}`,
  );
  const elsewhere = await parentsOfOtherRuns(connection, runId, rows);
  const headsByChain = new Map(heads.map((head) => [head.chain, head.hash]));
  const objects = verifyObjects(runId, run?.object_hash ?? null, rows, headsByChain, elsewhere, issues);
  const batches: SealedBatch[] = [];
  for (const { hash, object } of objects.values()) {
    if (object.kind !== 'event_batch') continue;
    const { seq_from, seq_to, events, merkle_root, judged, judgment_root } = object.payload;
    batches.push({
      hash,
      seqFrom: BigInt(String(seq_from)),
      seqTo: BigInt(String(seq_to)),
      events: Number(events),
      merkleRoot: String(merkle_root),
      judged: judged === undefined ? null : Number(judged),
      judgmentRoot: typeof judgment_root === 'string' ? judgment_root : null,
    });
  }
  await verifyEvents(connection, runId, batches, recheck, issues, sealedAtNs);
  await verifyArtifacts(connection, objects, issues);
  for (const check of runChecks) await check(connection, runId, batches, issues);
  const checkpoints = await readRows<CheckpointRow>(
    connection,
    sql`SELECT hash, envelope, key_id FROM checkpoints WHERE run_id = ${runId}`,
  );
  const keys = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys`,
  );
  verifyCheckpoints(
    objects,
    checkpoints,
    new Map(keys.map((key) => [key.key_id, key.public_key_pem])),
    headsByChain,
    runId,
    issues,
  );
  return verifyResultOf(runId, issues);
}

/** Keeps the outcome as the run's latest verify (the observability summary reports it); call inside the write queue. */
export async function keepVerifyResult(connection: StoreConnection, result: VerifyResult): Promise<void> {
  await execute(
    connection,
    sql`INSERT OR REPLACE INTO verify_results VALUES (${result.run_id}, ${result.status}, ${result.error_count},
        ${result.warning_count}, ${BigInt(Date.now()) * 1_000_000n})`,
  );
}

/** Hashes the run's objects name as parents that are stored under another run. */
async function parentsOfOtherRuns(
  connection: StoreConnection,
  runId: string,
  rows: readonly ObjectRow[],
): Promise<Set<string>> {
  const own = new Set(rows.map((row) => row.hash));
  const foreign = new Set<string>();
  for (const row of rows) {
    let parents: unknown;
    try {
      parents = (JSON.parse(row.body) as { parents?: unknown }).parents;
    } catch {
      continue; // malformed: verifyObjects reports it
    }
    if (!Array.isArray(parents)) continue;
    for (const parent of parents) if (typeof parent === 'string' && !own.has(parent)) foreign.add(parent);
  }
  if (foreign.size === 0) return foreign;
  const found = await readRows<{ hash: string }>(
    connection,
    sql`SELECT hash FROM objects WHERE run_id <> ${runId} AND hash IN (SELECT unnest(${list([...foreign], VARCHAR)}))`,
  );
  return new Set(found.map((row) => row.hash));
}
