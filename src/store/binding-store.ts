/**
 * Bindings in the store actor: persisted, held in the authoritative index, and applied to spooled
 * events (on arrival, and to any batch that a lagging replica correlated). The main thread feeds
 * the workers' replicas through the BindingLog once a bind is persisted.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { merkleRoot } from '../provenance/merkle.js';
import type { BatchCommit } from '../shared/store-messages.js';
import type { Binding } from '../telemetry/binding.js';
import { BindingReplica } from '../telemetry/binding-replica.js';
import { bindingFromJson, bindingToJson } from '../telemetry/binding-json.js';
import { evidenceCode, methodCode } from '../telemetry/codes.js';
import type { EventRecord } from '../telemetry/event-row.js';
import { pendingRowsSql, recorrelate, type PendingRow } from '../telemetry/recorrelate.js';
import { WindowDeltas } from '../telemetry/window-deltas.js';
import { mergeWindows, sqlText, upsertCountersSql, upsertWindowsSql } from './event-commit.js';

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
    const reader = await this.connection.runAndReadAll('SELECT record FROM bindings ORDER BY created_ns');
    for (const row of reader.getRowObjectsJS()) this.replica.add(bindingFromJson(row['record'] as string));
  }

  /** Persists a binding and settles the spooled events it attributes; call inside the write queue. */
  async bind(binding: Binding): Promise<number> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      await this.connection.run(
        `INSERT INTO runs VALUES (${sqlText(binding.run_id)}, ${binding.created_ns}) ON CONFLICT DO NOTHING`,
      );
      await this.connection.run(
        `INSERT INTO bindings VALUES (${sqlText(binding.binding_id)}, ${sqlText(binding.run_id)}, ` +
          `${sqlText(binding.tool_call_id)}, ${sqlText(bindingToJson(binding))}, ${binding.created_ns})`,
      );
      this.replica.add(binding);
      const settled = await this.settle(candidatesOf(binding));
      await this.connection.run('COMMIT');
      return settled.length;
    } catch (error) {
      await this.connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Re-checks the spooled rows of batches correlated by a replica that lacked some bindings (a task
   * can overtake a binding's broadcast); returns how many rows of each batch it settled.
   */
  async settleLagging(batches: readonly BatchCommit[]): Promise<Map<string, number>> {
    const settledByBatch = new Map<string, number>();
    const lagging = batches.filter((batch) => batch.pending > 0 && batch.bindingVersion < this.version);
    if (lagging.length === 0) return settledByBatch;
    const where = lagging.map((batch) => `starts_with(id, ${sqlText(batch.batchId + '.')})`).join(' OR ');
    for (const event of await this.settle(where)) {
      const batchId = event.id.slice(0, event.id.lastIndexOf('.'));
      settledByBatch.set(batchId, (settledByBatch.get(batchId) ?? 0) + 1);
    }
    return settledByBatch;
  }

  /** Every binding, as JSON records in arrival order (the main thread fills the workers' log with them). */
  records(): string[] {
    return this.replica.list().map(bindingToJson);
  }

  /** Attributes the spooled rows matching `where` that the index now places; returns them. */
  private async settle(where: string): Promise<EventRecord[]> {
    const reader = await this.connection.runAndReadAll(pendingRowsSql(where));
    const settled = recorrelate(reader.getRowObjectsJS() as unknown as PendingRow[], this.replica.index);
    if (settled.length === 0) return settled;
    const seqBase = this.allocateSeq(settled.length);
    await this.connection.run(settleSql(settled, seqBase));
    const deltas = new WindowDeltas();
    for (const event of settled) deltas.add(event);
    await this.connection.run(upsertWindowsSql(mergeWindows(deltas.list())));
    await this.connection.run(digestsSql(settled, `spool-${seqBase}`));
    await this.connection.run(
      upsertCountersSql([{ source: 'spool', counter: 'correlated', value: settled.length }]),
    );
    return settled;
  }
}

/** A SQL condition selecting every spooled row the binding could attribute (a superset: correlate decides). */
function candidatesOf(binding: Binding): string {
  const conditions: string[] = [];
  if (binding.cgroup_id !== null) conditions.push(`cgroup_id = ${sqlText(binding.cgroup_id)}`);
  if (binding.container_id !== null) conditions.push('container_id IS NOT NULL');
  const pids = [binding.pid, binding.root_pid].filter((pid): pid is number => pid !== null);
  const pidList = pids.join(', ');
  if (pids.length > 0) conditions.push(`pid IN (${pidList}) OR tgid IN (${pidList}) OR ppid IN (${pidList})`);
  if (binding.process_id !== null) {
    if (/^\d{1,10}$/.test(binding.process_id))
      conditions.push(`tgid = ${binding.process_id} OR pid = ${binding.process_id}`);
    conditions.push(`contains(attrs, ${sqlText(binding.process_id)})`); // an exec_id in attrs; no LIKE wildcards
  }
  return conditions.length === 0 ? 'false' : conditions.join(' OR ');
}

/** Moves settled rows into their runs, each with a new keyset position in the old order. */
function settleSql(settled: readonly EventRecord[], seqBase: bigint): string {
  const values = settled.map(
    (event, i) =>
      `(${sqlText(event.id)}, ${sqlText(event.runId)}, ${sqlText(event.toolCallId)}, ${sqlText(event.bindingId)}, ` +
      `${methodCode(event.method)}, ${event.confidence}, ${evidenceCode(event.evidenceLevel)}, ${seqBase + BigInt(i)})`,
  );
  return (
    'UPDATE events SET run_id = u.run_id, tool_call_id = u.tool_call_id, binding_id = u.binding_id, ' +
    'corr_method = u.method, corr_confidence = u.confidence, evidence_level = u.evidence, spool_state = 0, seq = u.seq ' +
    `FROM (VALUES ${values.join(', ')}) u(id, run_id, tool_call_id, binding_id, method, confidence, evidence, seq) ` +
    'WHERE events.spool_state = 1 AND events.id = u.id'
  );
}

/** One digest per run for the events a settlement added to it. */
function digestsSql(settled: readonly EventRecord[], batchId: string): string {
  const byRun = new Map<string, string[]>();
  for (const event of settled) {
    const hashes = byRun.get(event.runId!) ?? [];
    hashes.push(event.hash);
    byRun.set(event.runId!, hashes);
  }
  const now = BigInt(Date.now()) * 1_000_000n;
  const values = [...byRun].map(
    ([runId, hashes]) =>
      `(${sqlText(batchId)}, ${sqlText(runId)}, ${hashes.length}, ${sqlText(merkleRoot(hashes))}, ${now})`,
  );
  return `INSERT INTO event_batches VALUES ${values.join(', ')}`;
}
