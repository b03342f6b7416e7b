/**
 * Grows a stopped daemon's store by copying what it already holds, in SQL: for when ingesting the
 * rest through HTTP would take too long for a benchmark run. Each copy of the events shifts `seq`
 * past every existing position and `time_ns` past the whole existing time range (by whole minutes,
 * so 10 s and 60 s window buckets line up), and gets fresh ids; the windows rows are copied with the
 * same shift, so window queries see what ingesting the copies would have produced, and so are the
 * spool's settled ranges (copies get ids `<batch>~<k>.<index>`) and the policy's decisions; the
 * timeline's process rollup and what is folded with it (the signals' values, the runs' behaviour)
 * are rebuilt over every copy. The `time` text and `event_batches` digests are left as they were:
 * query latency does not read them.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { execute, inTransaction, join, raw, sql } from '../../src/store/sql.js';
import { securityModule } from '../../src/security/security-store.js';
import { rebuildProcessRollup } from '../../src/telemetry/process-rollup.sql.js';

/** What a fill did. */
export interface StoreFill {
  eventsBefore: number;
  eventsAfter: number;
  copies: number;
  elapsedMs: number;
}

const minuteNs = 60_000_000_000n;

/** Copies the events (and windows) of the store at `path` until it holds at least `target` events. */
export async function fillStoreBySql(path: string, target: number): Promise<StoreFill> {
  const started = performance.now();
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      'SELECT count(*) AS n, max(seq) + 1 AS span, min(time_ns) AS first, max(time_ns) AS last FROM events',
    );
    const stats = reader.getRowObjectsJS()[0] as { n: bigint; span: bigint; first: bigint; last: bigint };
    const before = Number(stats.n);
    if (before === 0) throw new Error('the store is empty: nothing to copy');
    const copies = Math.max(0, Math.ceil(target / before) - 1);
    const shiftNs = ((stats.last - stats.first) / minuteNs + 2n) * minuteNs;
    const columns = (
      await connection.runAndReadAll(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'events' ORDER BY column_index",
      )
    )
      .getRowObjectsJS()
      .map((row) => row['column_name'] as string);
    // the column names are the table's own, read above; every number is bound
    const select = columns.map((name) => {
      // `<batch>~k.<index>`: a copy's batch is a batch of its own, found through its settled range
      if (name === 'id') return sql`regexp_replace(id, '\\.([0-9]+)$', '~' || r.k || '.\\1')`;
      if (name === 'seq') return sql`seq + r.k * ${stats.span}`;
      if (name === 'time_ns') return sql`time_ns + r.k * ${shiftNs}`;
      return sql`${raw(name)}`;
    });
    if (copies > 0) {
      await inTransaction(connection, async () => {
        // one copy after the other, each in time order, as ingest would have laid them out: zone maps
        // on time_ns and seq then prune as they would on a store that grew by ingest. One statement
        // for every copy lays out the same rows in the same order as one a copy did, in half the time
        // (7.5-12.7 s against 15 s for 900,000 rows at load 16)
        await execute(
          connection,
          sql`INSERT INTO events SELECT ${join(select, ', ')} FROM events, range(1, ${copies + 1}) r(k)
              WHERE seq < ${stats.span} ORDER BY r.k, time_ns, seq`,
        );
        await execute(
          connection,
          sql`INSERT INTO windows SELECT run_id, window_s, bucket_ns + r.k * ${shiftNs}, type, events, correlated,
              risky, bytes FROM windows, range(1, ${copies + 1}) r(k)`,
        );
        await execute(
          connection,
          sql`INSERT INTO settled_ranges SELECT batch_id || '~' || r.k, time_from_ns + r.k * ${shiftNs},
              time_to_ns + r.k * ${shiftNs} FROM settled_ranges, range(1, ${copies + 1}) r(k)`,
        );
        // each copy of a judged event has its decision, under the copy's id
        await execute(
          connection,
          sql`INSERT INTO policy_decisions SELECT regexp_replace(event_id, '\\.([0-9]+)$', '~' || r.k || '.\\1'),
              event_hash, decision, rule_id, severity, reason, advisory_rule_id, advisory_decision,
              advisory_reason, policy, decided_ns, run_id, seq + r.k * ${stats.span}
              FROM policy_decisions, range(1, ${copies + 1}) r(k) ORDER BY r.k, seq`,
        );
      });
      // the copies join their processes' rows and the signals' values, as ingesting them would have
      await rebuildProcessRollup(connection, securityModule.participants.rollupFolds);
      await connection.run('CHECKPOINT');
    }
    return {
      eventsBefore: before,
      eventsAfter: before * (copies + 1),
      copies,
      elapsedMs: performance.now() - started,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
