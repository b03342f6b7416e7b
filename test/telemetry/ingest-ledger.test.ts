import assert from 'node:assert/strict';
import { execute, readRows, sql } from '../../src/store/sql.js';
import type { IngestAnswer } from '../../src/telemetry/batch-commit.js';
import { IngestLedger } from '../../src/telemetry/ingest-ledger.sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

const answer = (batchId: string): IngestAnswer => ({
  schema_version: 'provenance.ingest/v1',
  batch_id: batchId,
  accepted: 1,
  rejected: 0,
  pending: 0,
  errors: [],
  errors_truncated: false,
});

describe('IngestLedger', function () {
  let store: TestStore;
  const hourMs = 3_600_000;
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(function () {
    store.close();
  });

  /** Moves a key's record `ms` into the past. */
  async function age(key: string, ms: number): Promise<void> {
    await execute(
      store.connection,
      sql`UPDATE ingest_requests SET created_ns = created_ns - ${BigInt(ms) * 1_000_000n} WHERE idempotency_key = ${key}`,
    );
  }

  it('finds a key within retention and forgets it past retention', async function () {
    const ledger = new IngestLedger(store.connection, hourMs);
    await ledger.record([
      { key: 'young', digest: 'd1', answer: answer('b1') },
      { key: 'old', digest: 'd2', answer: answer('b2') },
    ]);
    await age('young', hourMs - 60_000);
    await age('old', hourMs + 60_000);
    const found = await ledger.lookup(['young', 'old', 'never']);
    assert.deepEqual([...found.keys()], ['young']);
    assert.deepEqual(found.get('young'), { key: 'young', digest: 'd1', answer: answer('b1') });
  });

  it('purges only keys past retention, and lets an expired key be claimed again', async function () {
    const ledger = new IngestLedger(store.connection, hourMs);
    await ledger.record([
      { key: 'young', digest: 'd1', answer: answer('b1') },
      { key: 'old', digest: 'd2', answer: answer('b2') },
    ]);
    await age('old', hourMs + 60_000);
    // an expired key claimed again (before any purge) replaces the stale record
    await ledger.record([{ key: 'old', digest: 'd3', answer: answer('b3') }]);
    assert.equal((await ledger.lookup(['old'])).get('old')?.digest, 'd3');
    await age('young', hourMs + 60_000);
    assert.equal(await ledger.purge(), 1);
    const left = await readRows<{ idempotency_key: string }>(
      store.connection,
      sql`SELECT idempotency_key FROM ingest_requests`,
    );
    assert.deepEqual(left, [{ idempotency_key: 'old' }]);
  });
});
