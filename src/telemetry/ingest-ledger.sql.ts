/**
 * The idempotency ledger of ingest (table ingest_requests): the first answer given for each
 * Idempotency-Key, written in the same transaction as the events it answers for. A resend with the
 * same key and body gets that answer back and stores nothing; keys are kept `retentionMs`.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { execute, list, readRows, sql, unnested } from '../store/sql.js';
import type { IdempotencyClaim, IngestAnswer } from './batch-commit.js';

/** How long a key is remembered: a day, as common idempotency-key practice (RFC draft, Stripe). */
export const idempotencyRetentionMs = 24 * 60 * 60 * 1000;

/** A key as stored: its body digest and the answer given. */
export interface LedgerEntry extends IdempotencyClaim {
  answer: IngestAnswer;
}

/** Reads and writes ingest_requests on the writer connection, inside the caller's transaction. */
export class IngestLedger {
  constructor(
    private readonly connection: StoreConnection,
    private readonly retentionMs = idempotencyRetentionMs,
  ) {}

  /** The stored entries of those keys that are still kept. */
  async lookup(keys: readonly string[]): Promise<Map<string, LedgerEntry>> {
    if (keys.length === 0) return new Map();
    const rows = await readRows<{ idempotency_key: string; body_digest: string; answer: string }>(
      this.connection,
      sql`SELECT idempotency_key, body_digest, answer FROM ingest_requests
          WHERE idempotency_key IN (SELECT unnest(${list(keys, VARCHAR)})) AND created_ns >= ${this.cutoffNs()}`,
    );
    return new Map(
      rows.map((row) => [
        row.idempotency_key,
        { key: row.idempotency_key, digest: row.body_digest, answer: JSON.parse(row.answer) as IngestAnswer },
      ]),
    );
  }

  /** Records first answers (an expired entry of the same key is replaced). */
  async record(entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await execute(
      this.connection,
      sql`INSERT OR REPLACE INTO ingest_requests SELECT ${unnested(
        [entries.map((entry) => entry.key), VARCHAR],
        [entries.map((entry) => entry.digest), VARCHAR],
        [entries.map((entry) => JSON.stringify(entry.answer)), VARCHAR],
      )}, ${BigInt(Date.now()) * 1_000_000n}`,
    );
  }

  /** Forgets keys past retention; returns how many. */
  async purge(): Promise<number> {
    const rows = await readRows<{ purged: bigint }>(
      this.connection,
      sql`DELETE FROM ingest_requests WHERE created_ns < ${this.cutoffNs()} RETURNING 1 AS purged`,
    );
    return rows.length;
  }

  private cutoffNs(): bigint {
    return BigInt(Date.now() - this.retentionMs) * 1_000_000n;
  }
}
