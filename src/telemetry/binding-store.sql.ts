/**
 * Bindings in the store actor: persisted, held in the authoritative index, and applied to spooled
 * events: on arrival, in SQL (binding-match.sql.ts), and to any batch that a lagging replica correlated,
 * through the index. The index changes only with a transaction that commits. The main thread feeds
 * the workers' replicas through the BindingLog once a bind is persisted.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, DOUBLE, UTINYINT, VARCHAR, type DuckDBType, type DuckDBValue } from '../store/duckdb-api.js';
import { appendToChains, ensureRun } from '../provenance/graph-chains.sql.js';
import { merkleRoot } from '../provenance/merkle.js';
import { execute, inTransaction, join, raw, readRows, sql, unnested, type Statement } from '../store/sql.js';
import type { BatchCommit } from './batch-commit.js';
import { insertDigests } from '../provenance/seal-batches.sql.js';
import type { BatchPlaces } from './batch-places.sql.js';
import type { Binding } from './binding.js';
import { buildCorrelations, normalizeContainerId } from './binding-index.js';
import { bindingFromJson, bindingToJson } from './binding-json.js';
import { bindingMatch } from './binding-match.sql.js';
import { BindingReplica } from './binding-replica.js';
import { evidenceCode, methodCode } from '../model/codes.js';
import { addCounters } from './producer-counters.sql.js';
import { pendingRowColumns, recorrelate, type PendingRow, type SettledEvent } from './recorrelate.js';
import { countWindows } from './window-upsert.sql.js';

/**
 * Settled events read back at a time to count them into windows and digests. Between chunks the
 * store thread turns to other messages, so a bind over a million spooled events never holds up a
 * readiness check for long.
 */
export const settleChunkRows = 20_000;

/** Owns bindings for the store thread. */
export class BindingStore {
  private readonly replica = new BindingReplica();

  constructor(
    private readonly connection: StoreConnection,
    /** Hands out keyset positions for events that join a run now. */
    private readonly allocateSeq: (count: number) => bigint,
    /** Gives judged events that join a run now their decisions' run, and returns their leaves by event id. */
    private readonly settleDecisions: SettleDecisions = () => Promise.resolve(new Map<string, string>()),
    /** Told where settled events now are, for explain; none in tests that do not explain. */
    private readonly places: BatchPlaces | null = null,
    /** After a binding's settlement committed: the run's events now at [fromSeq, toSeq) (tool call ties). */
    private readonly settledInto: (runId: string, fromSeq: bigint, toSeq: bigint) => Promise<void> = () =>
      Promise.resolve(),
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
   * Persists a binding and settles the spooled events it claims, in one transaction; call inside
   * the write queue. The index holds the binding only if the transaction commits.
   */
  async bind(binding: Binding): Promise<number> {
    const settled = await inTransaction(this.connection, async () => {
      await ensureRun(this.connection, binding.run_id, binding.created_ns);
      const record = bindingToJson(binding);
      const [object] = await appendToChains(this.connection, [
        {
          runId: binding.run_id,
          chain: 'context',
          build: (previous, index) => ({
            kind: 'binding',
            run_id: binding.run_id,
            parents: [previous],
            payload: { index, binding: JSON.parse(record) as Record<string, unknown> },
          }),
        },
      ]);
      await execute(
        this.connection,
        sql`INSERT INTO bindings VALUES (${binding.binding_id}, ${binding.run_id}, ${binding.tool_call_id},
            ${record}, ${binding.created_ns}, ${object!.hash})`,
      );
      return this.settleNew(binding);
    });
    this.replica.add(binding);
    if (settled.count > 0)
      await this.settledInto(binding.run_id, settled.seqBase, settled.seqBase + BigInt(settled.count));
    return settled.count;
  }

  /**
   * Re-checks the spooled rows of batches correlated by a replica that lacked some bindings (a task
   * can overtake a binding's broadcast); their rows sit at `fromSeq` or later. Only rows that one of
   * the lacked bindings could claim are read. Returns how many rows of each batch it settled.
   */
  async settleLagging(batches: readonly BatchCommit[], fromSeq: bigint): Promise<Map<string, number>> {
    const lagging = batches.filter((batch) => batch.pending > 0 && batch.bindingVersion < this.version);
    if (lagging.length === 0) return new Map();
    const oldest = Math.min(...lagging.map((batch) => batch.bindingVersion));
    const lacked = this.replica.list().slice(oldest).map(candidatesOf);
    const ofBatch = lagging.map((batch) => sql`starts_with(id, ${batch.batchId + '.'})`);
    const rows = await readRows<PendingRow & { seq: bigint }>(
      this.connection,
      sql`SELECT seq, ${raw(pendingRowColumns)} FROM events
          WHERE spool_state = 1 AND seq >= ${fromSeq} AND (${join(ofBatch, ' OR ')}) AND (${join(lacked, ' OR ')})
          ORDER BY seq`,
    );
    const settled = recorrelate(rows, this.replica.index);
    const byBatch = new Map<string, number>();
    if (settled.length === 0) return byBatch;
    const seqBase = this.allocateSeq(settled.length);
    await execute(this.connection, settleRows(settled, seqBase));
    await this.account(seqBase, settled.length);
    for (const { id } of settled) {
      const batchId = id.slice(0, id.lastIndexOf('.'));
      byBatch.set(batchId, (byBatch.get(batchId) ?? 0) + 1);
    }
    return byBatch;
  }

  /** Every binding, as JSON records in arrival order (the main thread fills the workers' log with them). */
  records(): string[] {
    return this.replica.list().map(bindingToJson);
  }

  /**
   * Moves the spooled events a new binding claims into its run, all in SQL on DuckDB's threads:
   * each gets its tier, and a new keyset position in its old order. Returns how many, and the first position.
   */
  private async settleNew(binding: Binding): Promise<{ count: number; seqBase: bigint }> {
    await execute(
      this.connection,
      sql`CREATE OR REPLACE TEMP TABLE settling AS
          SELECT seq AS old_seq, method FROM (SELECT seq, ${bindingMatch(binding)} AS method
            FROM events WHERE spool_state = 1) WHERE method IS NOT NULL`,
    );
    try {
      const [found] = await readRows<{ n: bigint }>(this.connection, sql`SELECT count(*) AS n FROM settling`);
      const count = Number(found!.n);
      if (count === 0) return { count, seqBase: 0n };
      const seqBase = this.allocateSeq(count);
      const correlations = buildCorrelations(binding);
      const confidence = (method: keyof typeof correlations): number => correlations[method].confidence;
      await execute(
        this.connection,
        sql`UPDATE events SET run_id = ${binding.run_id}, tool_call_id = ${binding.tool_call_id},
              binding_id = ${binding.binding_id}, evidence_level = ${evidenceCode(correlations.process.evidenceLevel)},
              corr_method = s.method, spool_state = 0, seq = ${seqBase} + s.position,
              corr_confidence = CASE s.method WHEN ${methodCode('process')} THEN ${confidence('process')}
                WHEN ${methodCode('cgroup')} THEN ${confidence('cgroup')}
                WHEN ${methodCode('container')} THEN ${confidence('container')}
                ELSE ${confidence('pid')} END
            FROM (SELECT old_seq, method, row_number() OVER (ORDER BY old_seq) - 1 AS position FROM settling) s
            WHERE events.seq = s.old_seq`,
      );
      await this.account(seqBase, count);
      return { count, seqBase };
    } finally {
      await execute(this.connection, sql`DROP TABLE IF EXISTS settling`);
    }
  }

  /**
   * Counts events that just joined their runs at positions [seqBase, seqBase + count) into windows
   * (in SQL), digests (one per run and chunk, a chunk at a time) and the spool's `correlated` counter.
   */
  private async account(seqBase: bigint, count: number): Promise<void> {
    const end = seqBase + BigInt(count);
    for (let from = seqBase; from < end; from += BigInt(settleChunkRows)) {
      const to = from + BigInt(settleChunkRows) < end ? from + BigInt(settleChunkRows) : end;
      const rows = await readRows<SettledRow>(
        this.connection,
        sql`SELECT id, seq, run_id, hash, judged FROM events WHERE seq >= ${from} AND seq < ${to} ORDER BY seq`,
      );
      const hashesByRun = new Map<string, string[]>();
      const judgedByRun = new Map<string, { id: string; seq: bigint }[]>();
      for (const row of rows) {
        const hashes = hashesByRun.get(row.run_id) ?? [];
        hashes.push(row.hash);
        hashesByRun.set(row.run_id, hashes);
        if (row.judged === true) {
          const judged = judgedByRun.get(row.run_id);
          if (judged === undefined) judgedByRun.set(row.run_id, [{ id: row.id, seq: row.seq }]);
          else judged.push({ id: row.id, seq: row.seq });
        }
      }
      const digests = [];
      for (const [runId, hashes] of hashesByRun) {
        const judged = judgedByRun.get(runId) ?? [];
        const leaves = await this.settleDecisions(runId, judged);
        // in event order; a judged event whose decision is missing has no leaf (verify reports it)
        const roots = judged.flatMap(({ id }) => leaves.get(id) ?? []);
        digests.push({
          batchId: `spool-${from}`,
          runId,
          events: hashes.length,
          merkleRoot: merkleRoot(hashes),
          seqFrom: from,
          seqTo: to,
          judged: roots.length,
          judgmentRoot: merkleRoot(roots),
        });
      }
      await insertDigests(this.connection, digests);
      for (const digest of digests) this.places?.committed(digest.batchId, digest.seqFrom, digest.seqTo);
    }
    // each ingest batch's settled events, by their time span: explain finds an id there
    const settled = await readRows<{ batch_id: string; time_from_ns: bigint; time_to_ns: bigint }>(
      this.connection,
      sql`INSERT INTO settled_ranges SELECT batch, min(time_ns), max(time_ns) FROM (
            SELECT regexp_extract(id, '^(.*)\\.[0-9]+$', 1) AS batch, time_ns FROM events
            WHERE seq >= ${seqBase} AND seq < ${end}) GROUP BY batch
          RETURNING batch_id, time_from_ns, time_to_ns`,
    );
    for (const range of settled) this.places?.settled(range.batch_id, range.time_from_ns, range.time_to_ns);
    await countWindows(this.connection, seqBase, end);
    await addCounters(this.connection, [{ source: 'spool', counter: 'correlated', value: count }]);
  }
}

/** Gives the decisions of judged events that joined `runId` their run and position; their leaves by event id. */
export type SettleDecisions = (
  runId: string,
  events: readonly { id: string; seq: bigint }[],
) => Promise<Map<string, string>>;

/** A settled row as `account` reads it back. */
interface SettledRow {
  id: string;
  seq: bigint;
  judged: boolean | null;
  run_id: string;
  hash: string;
}

/**
 * A condition selecting every spooled row the binding could claim: a superset, correlate decides.
 * Only rows inside the binding's interval, and with one of its keys, can match.
 */
function candidatesOf(binding: Binding): Statement {
  const keys: Statement[] = [];
  if (binding.cgroup_id !== null) keys.push(sql`cgroup_id = ${binding.cgroup_id}`);
  if (binding.container_id !== null) {
    // every id it matches holds the first 12 characters of its own (normalized) id
    const container = normalizeContainerId(binding.container_id);
    keys.push(sql`contains(lower(container_id), ${container.slice(0, 12)})`);
  }
  for (const pid of [binding.pid, binding.root_pid]) {
    if (pid !== null) keys.push(sql`(pid = ${pid} OR tgid = ${pid} OR ppid = ${pid})`);
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

/** The UPDATE moving settled rows into their runs, each with a new keyset position in its old order. */
function settleRows(settled: readonly SettledEvent[], seqBase: bigint): Statement {
  const column = <T extends DuckDBValue>(
    pick: (event: SettledEvent) => T,
    type: DuckDBType,
  ): [T[], DuckDBType] => [settled.map(pick), type];
  const columns = unnested(
    column((e) => e.seq, BIGINT),
    column((e) => e.runId, VARCHAR),
    column((e) => e.toolCallId, VARCHAR),
    column((e) => e.bindingId, VARCHAR),
    column((e) => methodCode(e.method), UTINYINT),
    column((e) => e.confidence, DOUBLE),
    column((e) => evidenceCode(e.evidenceLevel), UTINYINT),
  );
  return sql`UPDATE events SET run_id = u.run_id, tool_call_id = u.tool_call_id, binding_id = u.binding_id,
        corr_method = u.method, corr_confidence = u.confidence, evidence_level = u.evidence,
        spool_state = 0, seq = ${seqBase} + u.position
      FROM (SELECT *, row_number() OVER (ORDER BY old_seq) - 1 AS position
        FROM (SELECT ${columns}) AS s(old_seq, run_id, tool_call_id, binding_id, method, confidence, evidence)) u
      WHERE events.seq = u.old_seq`;
}
