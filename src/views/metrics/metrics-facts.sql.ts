/**
 * What GET /metrics reads from the store, in one store round trip per scrape: the producer
 * counters, coverage gaps by kind, the policy's decisions by rule, the spool and the database's
 * size. Every statement reads a small table or an aggregate the store keeps; none scans events, so
 * a scrape costs the same with a billion events stored as with none.
 */
import { stat } from 'node:fs/promises';
import type { StoreConnection } from '../../store/store-connection.js';
import type { SpoolStats } from '../../telemetry/spool.sql.js';
import { jsonText, type JsonText } from '../../store/json-text.js';
import { readRows, sql } from '../../store/sql.js';

/** One producer counter, as stored: per source (`tetragon`, `spool`, `unparsed`, ...) and name. */
export interface CounterFact {
  source: string;
  counter: string;
  value: number;
}

/** The store's half of a scrape. */
export interface MetricsFacts {
  counters: CounterFact[];
  /** Recorded coverage gaps and the events they say were lost, by gap kind. */
  gaps: { kind: string; gaps: number; lost_events: number }[];
  /** Stored policy decisions (risks) by decision and rule. */
  risks: { decision: string; rule_id: string; risks: number }[];
  /** Decisions that carry a detect-only advisory, by the advising rule. */
  advisories: { rule_id: string; risks: number }[];
  spool: SpoolStats;
  /** Bytes on disk of the database file and of its write-ahead log (0 when there is none). */
  store: { database_bytes: number; wal_bytes: number };
}

/** Reads the facts of one scrape on `connection`; `spoolStats` is read last (in memory). */
export async function readMetricsFacts(
  connection: StoreConnection,
  spoolStats: () => SpoolStats,
): Promise<JsonText<MetricsFacts>> {
  type Row = Record<string, unknown>;
  const counters = await readRows<Row>(
    connection,
    sql`SELECT source, counter, value FROM producer_counters ORDER BY ALL`,
  );
  const gaps = await readRows<Row>(
    connection,
    sql`SELECT kind, count(*) AS n, coalesce(sum(lost_events), 0) AS lost FROM coverage_gaps
        GROUP BY kind ORDER BY kind`,
  );
  const risks = await readRows<Row>(
    connection,
    sql`SELECT decision, rule_id, count(*) AS n FROM policy_decisions GROUP BY ALL ORDER BY ALL`,
  );
  const advisories = await readRows<Row>(
    connection,
    sql`SELECT advisory_rule_id AS rule_id, count(*) AS n FROM policy_decisions
        WHERE advisory_rule_id IS NOT NULL GROUP BY ALL ORDER BY ALL`,
  );
  // the file's size, not DuckDB's block count: committed rows sit in the WAL until a checkpoint
  const [database] = await readRows<Row>(
    connection,
    sql`SELECT path FROM duckdb_databases() WHERE database_name = current_database()`,
  );
  const path = database?.['path'];
  const store = { database_bytes: 0, wal_bytes: 0 };
  if (typeof path === 'string' && path !== '') {
    store.database_bytes = await fileBytes(path);
    store.wal_bytes = await fileBytes(`${path}.wal`);
  }
  return jsonText({
    counters: counters.map((row) => ({
      source: row['source'] as string,
      counter: row['counter'] as string,
      value: Number(row['value']),
    })),
    gaps: gaps.map((row) => ({
      kind: row['kind'] as string,
      gaps: Number(row['n']),
      lost_events: Number(row['lost']),
    })),
    risks: risks.map((row) => ({
      decision: row['decision'] as string,
      rule_id: row['rule_id'] as string,
      risks: Number(row['n']),
    })),
    advisories: advisories.map((row) => ({ rule_id: row['rule_id'] as string, risks: Number(row['n']) })),
    spool: spoolStats(),
    store,
  });
}

/** The size of `path`, 0 when it does not exist (a checkpoint removes the WAL). */
async function fileBytes(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
