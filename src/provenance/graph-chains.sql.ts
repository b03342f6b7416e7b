/**
 * The chains of a run's graph, on the store thread, inside the caller's transaction. Every run has a
 * `run` object at its root and two chains hanging from it: `context` (bindings, tool calls,
 * artifacts, file effects) and `event_batch` (the Merkle roots of its committed events). Each new
 * object of a chain names the chain's previous head as its first parent and carries its index, so a
 * missing, swapped or reordered object breaks a link that verify checks.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import { execute, list, raw, readRows, sql, unnested } from '../store/sql.js';
import { WriterMemo } from '../store/writer-memo.js';
import { sealObject, type GraphObject, type SealedObject } from './graph-object.js';

/** The chains objects are appended to (checkpoints keep their own, see checkpoints.sql.ts). */
export type ChainName = 'context' | 'event_batch' | 'checkpoint';

/** One object to append: built from the chain's head hash (the run object's for a new chain) and index. */
export interface ChainEntry {
  runId: string;
  chain: ChainName;
  build(previous: string, index: number): GraphObject;
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/**
 * The run object's hash, created with the run when no record, binding or object named it before.
 * Call inside a write transaction.
 */
export async function ensureRun(
  connection: DuckDBConnection,
  runId: string,
  seenNs: bigint,
): Promise<string> {
  return (await ensureRuns(connection, new Map([[runId, seenNs]]))).get(runId)!;
}

/** ensureRun for many runs (run id → when first seen) in three statements at most. */
async function ensureRuns(
  connection: DuckDBConnection,
  seen: ReadonlyMap<string, bigint>,
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  if (seen.size === 0) return hashes;
  const known = await readRows<{ run_id: string; object_hash: string | null; first_seen_ns: bigint }>(
    connection,
    sql`SELECT run_id, object_hash, first_seen_ns FROM runs WHERE run_id IN (SELECT unnest(${list([...seen.keys()], VARCHAR)}))`,
  );
  const byRun = new Map(known.map((row) => [row.run_id, row]));
  const created: { object: SealedObject; firstSeen: bigint }[] = [];
  for (const [runId, seenNs] of seen) {
    const row = byRun.get(runId);
    if (row?.object_hash != null) {
      hashes.set(runId, row.object_hash);
      continue;
    }
    const firstSeen = row?.first_seen_ns ?? seenNs;
    const object = sealObject({
      kind: 'run',
      run_id: runId,
      parents: [],
      payload: { first_seen_ns: firstSeen.toString() },
    });
    created.push({ object, firstSeen });
    hashes.set(runId, object.hash);
  }
  if (created.length === 0) return hashes;
  await insertObjects(
    connection,
    created.map(({ object }) => object),
  );
  await execute(
    connection,
    sql`INSERT INTO runs (run_id, first_seen_ns, object_hash) SELECT ${unnested(
      [created.map(({ object }) => object.runId), VARCHAR],
      [created.map(({ firstSeen }) => firstSeen), BIGINT],
      [created.map(({ object }) => object.hash), VARCHAR],
    )} ON CONFLICT (run_id) DO UPDATE SET object_hash = excluded.object_hash`,
  );
  return hashes;
}

/** A chain's head: its latest object and that object's index. */
interface Head {
  hash: string;
  index: number;
}

/**
 * The chain heads the writer has read or moved, by `run \0 chain`: every commit that seals events
 * moves its runs' heads, and reading them back each time cost a statement. Only appendToChains
 * moves heads, on the one writer connection. At most the chains of the last 10,000 runs touched.
 */
const keptHeads = new WriterMemo<Head>(10_000);

const keyOf = (entry: { runId: string; chain: string }): string => `${entry.runId}\u0000${entry.chain}`;

/** Appends entries to their chains in order, and returns the sealed objects in the same order. */
export async function appendToChains(
  connection: DuckDBConnection,
  entries: readonly ChainEntry[],
): Promise<SealedObject[]> {
  if (entries.length === 0) return [];
  const heads = await readHeads(connection, entries);
  // a chain's first object hangs from its run's object
  const roots = await ensureRuns(
    connection,
    new Map(entries.filter((entry) => !heads.has(keyOf(entry))).map((entry) => [entry.runId, nowNs()])),
  );
  const sealed: SealedObject[] = [];
  for (const entry of entries) {
    const key = keyOf(entry);
    let head = heads.get(key);
    if (head === undefined) head = { hash: roots.get(entry.runId)!, index: -1 };
    const index = head.index + 1;
    const object = sealObject(entry.build(head.hash, index), index);
    sealed.push(object);
    heads.set(key, { hash: object.hash, index });
  }
  // a chain object names its predecessor and index: it cannot be stored already
  await insertObjects(connection, sealed, 'new');
  const moved = [...new Set(entries.map(keyOf))];
  const at = nowNs();
  await execute(
    connection,
    sql`INSERT OR REPLACE INTO run_heads SELECT ${unnested(
      [moved.map((key) => key.split('\u0000')[0]!), VARCHAR],
      [moved.map((key) => key.split('\u0000')[1]!), VARCHAR],
      [moved.map((key) => heads.get(key)!.hash), VARCHAR],
      [moved.map((key) => BigInt(heads.get(key)!.index)), BIGINT],
    )}, ${at}`,
  );
  for (const key of moved) keptHeads.set(connection, key, heads.get(key)!);
  return sealed;
}

/**
 * Inserts addressed objects; an object already stored (same hash, same bytes) is kept once.
 * `new`: objects that cannot be stored already (a stored one fails the insert): DuckDB inserts
 * twice as fast without looking for conflicts.
 */
export async function insertObjects(
  connection: DuckDBConnection,
  objects: readonly SealedObject[],
  stored: 'maybe' | 'new' = 'maybe',
): Promise<void> {
  if (objects.length === 0) return;
  await execute(
    connection,
    sql`INSERT INTO objects SELECT ${unnested(
      [objects.map((object) => object.hash), VARCHAR],
      [objects.map((object) => object.kind), VARCHAR],
      [objects.map((object) => object.runId), VARCHAR],
      [objects.map((object) => (object.chainIndex === null ? null : BigInt(object.chainIndex))), BIGINT],
      [objects.map((object) => object.body), VARCHAR],
    )}, ${nowNs()} ${raw(stored === 'new' ? '' : 'ON CONFLICT DO NOTHING')}`,
  );
}

/**
 * The current heads of the chains the entries touch, by `run \0 chain` (a copy: the caller moves
 * them): kept ones, and for runs with a chain not kept, what run_heads holds.
 */
async function readHeads(
  connection: DuckDBConnection,
  entries: readonly ChainEntry[],
): Promise<Map<string, Head>> {
  const heads = new Map<string, Head>();
  for (const entry of entries) {
    const head = keptHeads.get(connection, keyOf(entry));
    if (head !== undefined) heads.set(keyOf(entry), head);
  }
  const runs = [...new Set(entries.filter((entry) => !heads.has(keyOf(entry))).map((entry) => entry.runId))];
  if (runs.length > 0) {
    const rows = await readRows<{ run_id: string; chain: string; hash: string; chain_index: bigint }>(
      connection,
      sql`SELECT run_id, chain, hash, chain_index FROM run_heads WHERE run_id IN (SELECT unnest(${list(runs, VARCHAR)}))`,
    );
    for (const row of rows) {
      const key = keyOf({ runId: row.run_id, chain: row.chain });
      const head = { hash: row.hash, index: Number(row.chain_index) };
      // what the caller moves comes from `heads`: keeping is only for the next call
      if (!heads.has(key)) heads.set(key, head);
      keptHeads.set(connection, key, head);
    }
  }
  return heads;
}
