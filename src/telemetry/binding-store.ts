/**
 * Bindings in the store actor: persisted, held in the authoritative index, and applied to spooled
 * events (on arrival, and to any batch that a lagging replica correlated). The index changes only
 * with a transaction that commits. The main thread feeds the workers' replicas through the
 * BindingLog once a bind is persisted.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BIGINT, DOUBLE, UTINYINT, VARCHAR } from '@duckdb/node-api';
import { merkleRoot } from '../provenance/merkle.js';
import { execute, inTransaction, join, list, raw, readRows, sql, type Statement } from '../store/sql.js';
import type { BatchCommit } from './batch-commit.js';
import type { Binding } from './binding.js';
import { bindingFromJson, bindingToJson } from './binding-json.js';
import { normalizeContainerId } from './binding-index.js';
import { BindingReplica } from './binding-replica.js';
import { evidenceCode, methodCode } from './codes.js';
import type { EventRecord } from './event-row.js';
import { addCounters } from './producer-counters.js';
import { pendingRowColumns, recorrelate, type PendingRow } from './recorrelate.js';
import { WindowDeltas } from './window-deltas.js';
import { addWindows } from './window-upsert.js';

/**
 * Spooled rows read and settled at a time. Between chunks the store thread turns to other messages,
 * so a bind over a million spooled events never holds up a readiness check for long.
 */
export const settleChunkRows = 20_000;

/** Owns bindings for the store thread. */
export class BindingStore {
  private readonly replica = new BindingReplica();

  constructor(
    private readonly connection: DuckDBConnection,
    /** Hands out keyset positions for events that join a run now. */
    private readonly allocateSeq: (count: number) => bigint,
  ) {}

  get version(): number {
    return this.replica.version;
  }

  /** Loads persisted bindings into the index (at open). */
  async load(): Promise<void> {
    const rows = await readRows<{ record: string }>(
      this.connection,
      sql`SELECT record FROM bindings ORDER BY created_ns`,
    );
    for (const row of rows) this.replica.add(bindingFromJson(row.record));
  }

  /**
   * Persists a binding and settles the spooled events it attributes, in one transaction; call inside
   * the write queue. The index holds the binding while settling needs it, and loses it again unless
   * the transaction commits.
   */
  async bind(binding: Binding): Promise<number> {
    this.replica.add(binding);
    try {
      return await inTransaction(this.connection, async () => {
        await execute(
          this.connection,
          sql`INSERT INTO runs VALUES (${binding.run_id}, ${binding.created_ns}) ON CONFLICT DO NOTHING`,
        );
        await execute(
          this.connection,
          sql`INSERT INTO bindings VALUES (${binding.binding_id}, ${binding.run_id}, ${binding.tool_call_id},
              ${bindingToJson(binding)}, ${binding.created_ns})`,
        );
        const settled = await this.settle(candidatesOf(binding));
        return [...settled.values()].reduce((sum, count) => sum + count, 0);
      });
    } catch (error) {
      this.replica.remove(binding.binding_id);
      throw error;
    }
  }

  /**
   * Re-checks the spooled rows of batches correlated by a replica that lacked some bindings (a task
   * can overtake a binding's broadcast); their rows sit at `fromSeq` or later. Returns how many rows
   * of each batch it settled.
   */
  async settleLagging(batches: readonly BatchCommit[], fromSeq: bigint): Promise<Map<string, number>> {
    const lagging = batches.filter((batch) => batch.pending > 0 && batch.bindingVersion < this.version);
    if (lagging.length === 0) return new Map();
    const ofBatch = lagging.map((batch) => sql`starts_with(id, ${batch.batchId + '.'})`);
    return this.settle(sql`seq >= ${fromSeq} AND (${join(ofBatch, ' OR ')})`);
  }

  /** Every binding, as JSON records in arrival order (the main thread fills the workers' log with them). */
  records(): string[] {
    return this.replica.list().map(bindingToJson);
  }

  /**
   * Attributes the spooled rows matching `where` that the index now places, a chunk at a time in
   * keyset order; returns how many it settled per batch.
   */
  private async settle(where: Statement): Promise<Map<string, number>> {
    const byBatch = new Map<string, number>();
    for (let after = -1n; ;) {
      const rows = await readRows<PendingRow & { seq: bigint }>(
        this.connection,
        sql`SELECT seq, ${raw(pendingRowColumns)} FROM events
            WHERE spool_state = 1 AND seq > ${after} AND (${where}) ORDER BY seq LIMIT ${settleChunkRows}`,
      );
      if (rows.length === 0) break;
      const settled = recorrelate(rows, this.replica.index);
      if (settled.length > 0) await this.apply(settled, rows[0]!.seq, rows[rows.length - 1]!.seq);
      for (const event of settled) {
        const batchId = event.id.slice(0, event.id.lastIndexOf('.'));
        byBatch.set(batchId, (byBatch.get(batchId) ?? 0) + 1);
      }
      if (rows.length < settleChunkRows) break;
      after = rows[rows.length - 1]!.seq;
    }
    return byBatch;
  }

  /** Moves settled rows (read between positions `low` and `high`) into their runs, with windows, digests, counters. */
  private async apply(settled: readonly EventRecord[], low: bigint, high: bigint): Promise<void> {
    const seqBase = this.allocateSeq(settled.length);
    await execute(this.connection, settleRows(settled, seqBase, low, high));
    const deltas = new WindowDeltas();
    for (const event of settled) deltas.add(event);
    await addWindows(this.connection, deltas.list());
    await insertSettledDigests(this.connection, settled, `spool-${seqBase}`);
    await addCounters(this.connection, [{ source: 'spool', counter: 'correlated', value: settled.length }]);
  }
}

/**
 * A condition selecting every spooled row the binding could attribute: a superset, correlate
 * decides. Only rows inside the binding's interval, and with one of its keys, can match.
 */
function candidatesOf(binding: Binding): Statement {
  const keys: Statement[] = [];
  if (binding.cgroup_id !== null) keys.push(sql`cgroup_id = ${binding.cgroup_id}`);
  if (binding.container_id !== null) {
    // every id it matches holds the first 12 characters of its own (normalized) id
    const container = normalizeContainerId(binding.container_id);
    keys.push(sql`contains(lower(container_id), ${container.slice(0, 12)})`);
  }
  const pids = [binding.pid, binding.root_pid].filter((pid): pid is number => pid !== null);
  if (pids.length > 0) {
    const pidList = list(pids.map(BigInt), BIGINT);
    keys.push(sql`(pid IN (SELECT unnest(${pidList})) OR tgid IN (SELECT unnest(${pidList}))
                   OR ppid IN (SELECT unnest(${pidList})))`);
  }
  if (binding.process_id !== null) {
    if (/^\d{1,10}$/.test(binding.process_id)) {
      const pid = BigInt(binding.process_id);
      keys.push(sql`(tgid = ${pid} OR pid = ${pid})`);
    }
    keys.push(sql`contains(attrs, ${binding.process_id})`); // an exec_id in attrs; no LIKE wildcards
  }
  if (keys.length === 0) return sql`false`;
  const interval: Statement[] = [];
  if (binding.startNs !== null) interval.push(sql`time_ns >= ${binding.startNs}`);
  if (binding.endNs !== null) interval.push(sql`time_ns <= ${binding.endNs}`);
  return join([sql`(${join(keys, ' OR ')})`, ...interval], ' AND ');
}

/** The UPDATE moving settled rows into their runs, each with a new keyset position in the old order. */
function settleRows(settled: readonly EventRecord[], seqBase: bigint, low: bigint, high: bigint): Statement {
  const column = <T>(pick: (event: EventRecord) => T) => settled.map(pick);
  return sql`UPDATE events SET run_id = u.run_id, tool_call_id = u.tool_call_id, binding_id = u.binding_id,
        corr_method = u.method, corr_confidence = u.confidence, evidence_level = u.evidence,
        spool_state = 0, seq = u.seq
      FROM (SELECT unnest(${list(
        column((e) => e.id),
        VARCHAR,
      )}) AS id, unnest(${list(
        column((e) => e.runId),
        VARCHAR,
      )}) AS run_id, unnest(${list(
        column((e) => e.toolCallId),
        VARCHAR,
      )}) AS tool_call_id, unnest(${list(
        column((e) => e.bindingId),
        VARCHAR,
      )}) AS binding_id, unnest(${list(
        column((e) => methodCode(e.method)),
        UTINYINT,
      )}) AS method, unnest(${list(
        column((e) => e.confidence),
        DOUBLE,
      )}) AS confidence, unnest(${list(
        column((e) => evidenceCode(e.evidenceLevel)),
        UTINYINT,
      )}) AS evidence, unnest(${list(
        settled.map((_e, i) => seqBase + BigInt(i)),
        BIGINT,
      )}) AS seq) u
      WHERE events.seq BETWEEN ${low} AND ${high} AND events.spool_state = 1 AND events.id = u.id`;
}

/** One digest per run for the events a settlement added to it. */
async function insertSettledDigests(
  connection: DuckDBConnection,
  settled: readonly EventRecord[],
  batchId: string,
): Promise<void> {
  const byRun = new Map<string, string[]>();
  for (const event of settled) {
    const hashes = byRun.get(event.runId!) ?? [];
    hashes.push(event.hash);
    byRun.set(event.runId!, hashes);
  }
  const runs = [...byRun];
  await execute(
    connection,
    sql`INSERT INTO event_batches SELECT ${batchId}, unnest(${list(
      runs.map(([runId]) => runId),
      VARCHAR,
    )}), unnest(${list(
      runs.map(([, hashes]) => BigInt(hashes.length)),
      BIGINT,
    )}), unnest(${list(
      runs.map(([, hashes]) => merkleRoot(hashes)),
      VARCHAR,
    )}), ${BigInt(Date.now()) * 1_000_000n}`,
  );
}
