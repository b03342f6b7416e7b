/** Producer counters add up per source and counter, across commits, on a real (migrated) store. */
import assert from 'node:assert/strict';
import { readRows, sql } from '../../src/store/sql.js';
import { addCounters } from '../../src/telemetry/producer-counters.sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

describe('producer counters', function () {
  let store: TestStore;
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(function () {
    store.close();
  });

  it('adds each increment to its own source and counter, creating counters as needed', async function () {
    await addCounters(store.connection, [
      { source: 'provd_sensor', counter: 'accepted', value: 3 },
      { source: 'native_jsonl', counter: 'accepted', value: 5 },
      { source: 'provd_sensor', counter: 'spooled', value: 2 },
      { source: 'provd_sensor', counter: 'accepted', value: 1 }, // merged within the call
    ]);
    await addCounters(store.connection, [
      { source: 'native_jsonl', counter: 'accepted', value: 10 },
      { source: 'native_jsonl', counter: 'spooled', value: 7 },
      { source: 'provd_sensor', counter: 'spooled', value: 1 },
    ]);
    await addCounters(store.connection, []); // nothing to add: no statement, nothing changes
    const rows = await readRows<{ source: string; counter: string; value: bigint }>(
      store.connection,
      sql`SELECT source, counter, value FROM producer_counters ORDER BY source, counter`,
    );
    assert.deepEqual(
      rows.map((row) => [row.source, row.counter, Number(row.value)]),
      [
        ['native_jsonl', 'accepted', 15],
        ['native_jsonl', 'spooled', 7],
        ['provd_sensor', 'accepted', 4],
        ['provd_sensor', 'spooled', 3],
      ],
    );
  });
});
