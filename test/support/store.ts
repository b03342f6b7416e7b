/**
 * A real, migrated DuckDB store in memory for store-side tests, and events written into it through
 * the same rows file and INSERT the daemon's commit uses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { applyMigrations, loadMigrations } from '../../src/store/migrations.sql.js';
import { execute, readRows, sql } from '../../src/store/sql.js';
import type { Correlation } from '../../src/telemetry/binding-index.js';
import { insertEvents } from '../../src/telemetry/event-commit.sql.js';
import { hashEvent } from '../../src/telemetry/event-hash.js';
import { encodeEventRow } from '../../src/telemetry/event-row.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { parseRfc3339 } from '../../src/shared/rfc3339.js';

/** An open in-memory store; `close` releases it. */
export interface TestStore {
  connection: DuckDBConnection;
  /** Next keyset position, as the committer hands them out. */
  nextSeq: bigint;
  allocateSeq(count: number): bigint;
  /** Writes the rows file of batch `batchId` (ids `<batchId>.<i>` once inserted), pending unless a correlation is given. */
  writeRows(batchId: string, events: ParsedEvent[], match?: Correlation): string;
  /** Writes events as one batch and inserts them as the committer does. */
  insert(batchId: string, events: ParsedEvent[], match?: Correlation, ingestedNs?: bigint): Promise<void>;
  rows(where?: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

/** Opens a fresh store with every migration applied. */
export async function openTestStore(): Promise<TestStore> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await applyMigrations(connection, loadMigrations());
  const dir = mkdtempSync(join(tmpdir(), 'provd-store-'));
  const store: TestStore = {
    connection,
    nextSeq: 0n,
    allocateSeq(count) {
      const first = store.nextSeq;
      store.nextSeq += BigInt(count);
      return first;
    },
    writeRows(batchId, events, match) {
      const file = join(dir, `${batchId}.csv`);
      const text = events
        .map((event, i) => {
          const attrsJson = canonicalJson(event.attrs);
          const hashHex = hashEvent(event, attrsJson).slice('sha256:'.length);
          return encodeEventRow(i, event, attrsJson, hashHex, false, match);
        })
        .join('');
      writeFileSync(file, text);
      return file;
    },
    async insert(batchId, events, match, ingestedNs = BigInt(Date.now()) * 1_000_000n) {
      const file = store.writeRows(batchId, events, match);
      const load = { file, accepted: events.length, batchId, ingestedNs };
      await execute(connection, insertEvents([load], store.allocateSeq(events.length)));
    },
    rows(where = 'true') {
      return readRows(
        connection,
        sql`SELECT * FROM events WHERE ${{ text: where, values: [], types: [] }} ORDER BY seq`,
      );
    },
    close() {
      connection.closeSync();
      instance.closeSync();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return store;
}

/** An event with defaults a test does not care about; `time` is RFC 3339. */
export function testEvent(fields: Partial<ParsedEvent> & { at?: string } = {}): ParsedEvent {
  const { at = '2026-01-01T00:00:05Z', ...rest } = fields;
  return {
    type: 'execve',
    source: 'native_jsonl',
    time: at,
    timeNs: parseRfc3339(at)!,
    pid: 5000,
    tgid: 5000,
    ppid: 1,
    uid: 0,
    loginUid: null,
    comm: 'sh',
    cgroupId: null,
    containerId: null,
    attrs: {},
    ...rest,
  };
}
