/**
 * The chains of a run's graph, on the store thread, inside the caller's transaction. Every run has a
 * `run` object at its root and two chains hanging from it: `context` (bindings, tool calls,
 * artifacts, file effects) and `event_batch` (the Merkle roots of its committed events). Each new
 * object of a chain names the chain's previous head as its first parent and carries its index, so a
 * missing, swapped or reordered object breaks a link that verify checks.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import {
  execute,
  fewRows,
  list,
  raw,
  readRows,
  sql,
  unnested,
  valueRows,
  type Statement,
} from '../store/sql.js';
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
export async function ensureRun(connection: StoreConnection, runId: string, seenNs: bigint): Promise<string> {
  return (await ensureRuns(connection, new Map([[runId, seenNs]]))).get(runId)!;
}

/**
 * The run objects' hashes the writer has read or written, by run id: a run's object never changes
 * once stored (no write moves or removes it), and a hook write asked for it each time. Forgotten
 * on rollback (WriterMemo), at most the last 10,000 runs touched.
 */
const keptRuns = new WriterMemo<string>(10_000);

/** ensureRun for many runs (run id → when first seen) in three statements at most. */
async function ensureRuns(
  connection: StoreConnection,
  seen: ReadonlyMap<string, bigint>,
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const runId of seen.keys()) {
    const hash = keptRuns.get(connection, runId);
    if (hash !== undefined) hashes.set(runId, hash);
  }
  const unknown = [...seen.keys()].filter((runId) => !hashes.has(runId));
  if (unknown.length === 0) return hashes;
  const known = await readRows<{ run_id: string; object_hash: string | null; first_seen_ns: bigint }>(
    connection,
    sql`SELECT run_id, object_hash, first_seen_ns FROM runs WHERE run_id IN (SELECT unnest(${list(unknown, VARCHAR)}))`,
  );
  const byRun = new Map(known.map((row) => [row.run_id, row]));
  const created: { object: SealedObject; firstSeen: bigint }[] = [];
  for (const runId of unknown) {
    const row = byRun.get(runId);
    if (row?.object_hash != null) {
      hashes.set(runId, row.object_hash);
      keptRuns.set(connection, runId, row.object_hash);
      continue;
    }
    const seenNs = seen.get(runId)!;
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
  for (const { object } of created) keptRuns.set(connection, object.runId, object.hash);
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
  connection: StoreConnection,
  entries: readonly ChainEntry[],
): Promise<SealedObject[]> {
  const batch = new ChainBatch(connection);
  const sealed = await batch.append(entries);
  await batch.flush();
  return sealed;
}

/** A head a batch moved: `stored` when run_heads holds a row of its chain (the batch updates it). */
type MovedHead = Head & { stored: boolean };

/**
 * Appends to chains within one write transaction, stored together by `flush`: one insert of every
 * object appended and one write of the heads moved, however many appends came before (a batch of
 * hook events appends two or three objects a hook; each insert is a statement of ~1 ms of CPU).
 * Later appends of the batch read the heads it moved from it.
 */
export class ChainBatch {
  private readonly objects: SealedObject[] = [];
  private readonly moved = new Map<string, MovedHead>();

  constructor(private readonly connection: StoreConnection) {}

  /** Seals entries in order on their chains' heads; stored by `flush`. */
  async append(entries: readonly ChainEntry[]): Promise<SealedObject[]> {
    if (entries.length === 0) return [];
    const heads = await readHeads(
      this.connection,
      entries.filter((entry) => !this.moved.has(keyOf(entry))),
    );
    // a chain's first object hangs from its run's object
    const roots = await ensureRuns(
      this.connection,
      new Map(
        entries
          .filter((entry) => !this.moved.has(keyOf(entry)) && !heads.has(keyOf(entry)))
          .map((entry) => [entry.runId, nowNs()]),
      ),
    );
    const sealed: SealedObject[] = [];
    for (const entry of entries) {
      const key = keyOf(entry);
      const read = heads.get(key);
      const head: MovedHead =
        this.moved.get(key) ??
        (read === undefined
          ? { hash: roots.get(entry.runId)!, index: -1, stored: false }
          : { ...read, stored: true });
      const index = head.index + 1;
      const object = sealObject(entry.build(head.hash, index), index);
      sealed.push(object);
      this.objects.push(object);
      this.moved.set(key, { hash: object.hash, index, stored: head.stored });
    }
    return sealed;
  }

  /** Stores what was appended: the objects, then the heads (updated in place where a row is). */
  async flush(): Promise<void> {
    // a chain object names its predecessor and index: it cannot be stored already
    await insertObjects(this.connection, this.objects, 'new');
    const moved = [...this.moved];
    const at = nowNs();
    const updated = moved.filter(([, head]) => head.stored);
    const created = moved.filter(([, head]) => !head.stored);
    const [only] = updated;
    if (updated.length === 1) {
      // one head, updated by its key: half the time of the join below (1.4 against 3.2 ms)
      const [runId, chain] = only![0].split('\u0000') as [string, string];
      await execute(
        this.connection,
        sql`UPDATE run_heads SET hash = ${only![1].hash}, chain_index = ${BigInt(only![1].index)}, updated_ns = ${at}
            WHERE run_id = ${runId} AND chain = ${chain}`,
      );
    } else if (updated.length > 1)
      await execute(
        this.connection,
        sql`UPDATE run_heads SET hash = m.hash, chain_index = m.chain_index, updated_ns = ${at}
            FROM (${headRows(updated)}) m (run_id, chain, hash, chain_index)
            WHERE run_heads.run_id = m.run_id AND run_heads.chain = m.chain`,
      );
    if (created.length > 0)
      await execute(
        this.connection,
        sql`INSERT OR REPLACE INTO run_heads SELECT *, ${at} FROM (${headRows(created)})`,
      );
    for (const [key, { hash, index }] of moved) keptHeads.set(this.connection, key, { hash, index });
    this.objects.length = 0;
    this.moved.clear();
  }
}

/** Moved heads as rows of run_id, chain, hash, chain_index. */
function headRows(heads: readonly [string, Head][]): Statement {
  const rows = heads.map(([key, head]) => {
    const [runId, chain] = key.split('\u0000') as [string, string];
    return [runId, chain, head.hash, BigInt(head.index)] as const;
  });
  return rows.length <= fewRows
    ? sql`VALUES ${valueRows(rows)}`
    : sql`SELECT ${unnested(
        [rows.map((row) => row[0]), VARCHAR],
        [rows.map((row) => row[1]), VARCHAR],
        [rows.map((row) => row[2]), VARCHAR],
        [rows.map((row) => row[3]), BIGINT],
      )}`;
}

/**
 * Inserts addressed objects; an object already stored (same hash, same bytes) is kept once.
 * `new`: objects that cannot be stored already (a stored one fails the insert): DuckDB inserts
 * twice as fast without looking for conflicts.
 */
export async function insertObjects(
  connection: StoreConnection,
  objects: readonly SealedObject[],
  stored: 'maybe' | 'new' = 'maybe',
): Promise<void> {
  if (objects.length === 0) return;
  const at = nowNs();
  const chainIndex = (object: SealedObject): bigint | null =>
    object.chainIndex === null ? null : BigInt(object.chainIndex);
  const rows =
    objects.length <= fewRows
      ? sql`VALUES ${valueRows(
          objects.map((object) => [
            object.hash,
            object.kind,
            object.runId,
            chainIndex(object),
            object.body,
            at,
          ]),
        )}`
      : sql`SELECT ${unnested(
          [objects.map((object) => object.hash), VARCHAR],
          [objects.map((object) => object.kind), VARCHAR],
          [objects.map((object) => object.runId), VARCHAR],
          [objects.map(chainIndex), BIGINT],
          [objects.map((object) => object.body), VARCHAR],
        )}, ${at}`;
  await execute(
    connection,
    sql`INSERT INTO objects ${rows} ${raw(stored === 'new' ? '' : 'ON CONFLICT DO NOTHING')}`,
  );
}

/**
 * The current heads of the chains the entries touch, by `run \0 chain` (a copy: the caller moves
 * them): kept ones, and for runs with a chain not kept, what run_heads holds.
 */
async function readHeads(
  connection: StoreConnection,
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
