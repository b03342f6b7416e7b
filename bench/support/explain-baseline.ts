/**
 * The least an explain of an event must read, done by DuckDB directly: graph.explain_event's
 * baseline. For each event: its row at its position (explain knows where a batch's events are),
 * the exec of its process in the minute before it (the lookup explain starts its lineage with),
 * the event_batch that seals it, and its tool call, binding and run: four indexed or zone-mapped
 * reads, one round trip each, and no HTTP. A lookup by id alone, the old baseline, scans the events
 * table (71-224 ms at 1M events, swinging the ratio 0.66-3.14x between runs).
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { list, readRows, sql } from '../../src/store/sql.js';
import { VARCHAR } from '../../src/store/duckdb-api.js';
import { eventRowColumns } from '../../src/views/explain/explain-reads.sql.js';
import { processRowColumns, recentExecNs } from '../../src/views/explain/process-reads.sql.js';
import { typeCode } from '../../src/model/codes.js';

/** Where an event is, and what its explain reads next: read once, before anything is timed. */
interface EventPlace {
  id: string;
  seq: bigint;
  run_id: string | null;
  tgid: number | null;
  time_ns: bigint;
  tool_call_id: string | null;
  binding_id: string | null;
}

/** DuckDB's own reads of explain's minimum, on a copy of a store the daemon holds. */
export class ExplainBaseline {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly places: Map<string, EventPlace>,
    private readonly copy: string,
  ) {}

  /**
   * Copies the (closed) store at `path` and finds where each of `ids` is: the copy lets the reads
   * run beside a daemon that holds the store, in alternating rounds, so load slows both alike.
   */
  static async open(path: string, ids: readonly string[]): Promise<ExplainBaseline> {
    const copy = `${path}.baseline`;
    copyFileSync(path, copy);
    if (existsSync(`${path}.wal`)) copyFileSync(`${path}.wal`, `${copy}.wal`);
    const instance = await DuckDBInstance.create(copy, { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    const rows = await readRows<EventPlace>(
      connection,
      sql`SELECT id, seq, run_id, tgid, time_ns, tool_call_id, binding_id FROM events
          WHERE list_contains(${list(ids, VARCHAR)}, id)`,
    );
    return new ExplainBaseline(instance, connection, new Map(rows.map((row) => [row.id, row])), copy);
  }

  /** The reads of one event's explain; ms taken. */
  async time(id: string): Promise<number> {
    const place = this.places.get(id);
    if (place === undefined) throw new Error(`event ${id} is not in the store`);
    const { connection } = this;
    const started = performance.now();
    await readRows(
      connection,
      sql`SELECT ${eventRowColumns} FROM events WHERE seq = ${place.seq} AND id = ${id}`,
    );
    await readRows(
      connection,
      sql`SELECT ${processRowColumns} FROM events
          WHERE run_id IS NOT DISTINCT FROM ${place.run_id} AND tgid = ${place.tgid}
            AND time_ns <= ${place.time_ns} AND time_ns >= ${place.time_ns - recentExecNs}
          ORDER BY (type = ${typeCode('execve')}) DESC, time_ns DESC LIMIT 1`,
    );
    await readRows(
      connection,
      sql`SELECT object_hash FROM event_batches
          WHERE run_id = ${place.run_id} AND seq_from <= ${place.seq} AND seq_to > ${place.seq}`,
    );
    await readRows(
      connection,
      sql`SELECT t.record, t.object_hash, b.object_hash AS binding_hash, r.object_hash AS run_hash
          FROM (SELECT 1) one
            LEFT JOIN tool_calls t ON t.run_id = ${place.run_id} AND t.tool_call_id = ${place.tool_call_id}
            LEFT JOIN bindings b ON b.binding_id = ${place.binding_id}
            LEFT JOIN runs r ON r.run_id = ${place.run_id}`,
    );
    return performance.now() - started;
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    rmSync(this.copy, { force: true });
    rmSync(`${this.copy}.wal`, { force: true });
  }
}
