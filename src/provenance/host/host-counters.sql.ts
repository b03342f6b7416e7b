/**
 * The producer counters of source `host`: what host retention removed and refused, added up as
 * telemetry's addCounters adds the ingest counters (provenance sits below telemetry and cannot
 * import it), and verify-host's full verifications.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, VARCHAR } from '../../store/duckdb-api.js';
import { execute, sql, unnested } from '../../store/sql.js';
import type { Removal } from './host-retention.sql.js';

/** Counts a round's removal: retained_events, retained_batches, retained_bytes, retention_refused. */
export async function countRemoval(connection: StoreConnection, removal: Removal | null): Promise<void> {
  if (removal === null) return;
  const deltas = [
    { counter: 'retained_events', value: removal.events },
    { counter: 'retained_batches', value: removal.digests.length },
    { counter: 'retained_bytes', value: removal.bytes },
    { counter: 'retention_refused', value: removal.refused.length },
  ].filter((delta) => delta.value > 0);
  if (deltas.length === 0) return;
  await execute(
    connection,
    sql`MERGE INTO producer_counters p
        USING (SELECT 'host', ${unnested(
          [deltas.map((delta) => delta.counter), VARCHAR],
          [deltas.map((delta) => BigInt(delta.value)), BIGINT],
        )}, ${BigInt(Date.now()) * 1_000_000n}) c (source, counter, value, updated_ns)
        ON p.source = c.source AND p.counter = c.counter
        WHEN MATCHED THEN UPDATE SET value = p.value + c.value, updated_ns = c.updated_ns
        WHEN NOT MATCHED THEN INSERT VALUES (c.source, c.counter, c.value, c.updated_ns)`,
  );
}

/**
 * Counts a full verification of the host events (`verified_full`, its row's updated_ns is when the
 * last one ended) and keeps how long that one took (`verified_full_ms`).
 */
export async function countFullVerification(connection: StoreConnection, ms: number): Promise<void> {
  await execute(
    connection,
    sql`MERGE INTO producer_counters p
        USING (SELECT 'host', ${unnested(
          [['verified_full', 'verified_full_ms'], VARCHAR],
          [[1n, BigInt(ms)], BIGINT],
        )}, ${BigInt(Date.now()) * 1_000_000n}) c (source, counter, value, updated_ns)
        ON p.source = c.source AND p.counter = c.counter
        WHEN MATCHED THEN UPDATE SET
          value = CASE WHEN c.counter = 'verified_full' THEN p.value + c.value ELSE c.value END,
          updated_ns = c.updated_ns
        WHEN NOT MATCHED THEN INSERT VALUES (c.source, c.counter, c.value, c.updated_ns)`,
  );
}
