import assert from 'node:assert/strict';
import { execute, readRows, sql } from '../../src/store/sql.js';
import { WriteQueue } from '../../src/store/write-queue.js';
import { spoolName } from '../../src/model/codes.js';
import type { SpoolLimits } from '../../src/telemetry/spool-limits.js';
import { Spool } from '../../src/telemetry/spool.sql.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** Each spooled event's comm with its spool state, in keyset order. */
async function states(store: TestStore): Promise<[string, string][]> {
  return (await store.rows()).map((row) => [row['comm'] as string, spoolName(row['spool_state'] as number)]);
}

describe('Spool', function () {
  let store: TestStore;
  const spools: Spool[] = [];
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(function () {
    for (const spool of spools.splice(0)) spool.stop();
    store.close();
  });

  async function spool(limits: Partial<SpoolLimits>): Promise<Spool> {
    const started = new Spool(store.connection, new WriteQueue(), {
      ttlMs: 3_600_000,
      maxEvents: 1_000_000,
      maxBytes: 1_000_000_000,
      ...limits,
    });
    await started.start();
    spools.push(started);
    return started;
  }

  it('overflows the oldest spooled events past the event bound and keeps the newest', async function () {
    const events = (from: number): ReturnType<typeof testEvent>[] =>
      Array.from({ length: 5 }, (_v, i) => testEvent({ comm: `e${from + i}` }));
    await store.insert('first', events(0));
    await store.insert('second', events(5));
    const result = await (await spool({ maxEvents: 6 })).tick();
    assert.deepEqual(result, { unclaimed: 0, overflowed: 4 });
    assert.deepEqual(await states(store), [
      ['e0', 'overflowed'],
      ['e1', 'overflowed'],
      ['e2', 'overflowed'],
      ['e3', 'overflowed'],
      ['e4', 'pending'],
      ['e5', 'pending'],
      ['e6', 'pending'],
      ['e7', 'pending'],
      ['e8', 'pending'],
      ['e9', 'pending'],
    ]);
    const [gap] = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT kind, source, lost_events FROM coverage_gaps`,
    );
    assert.deepEqual(gap, { kind: 'spool_overflow', source: 'spool', lost_events: 4n });
  });

  it('overflows by bytes from the oldest too, and counts what it gave up', async function () {
    const big = 'x'.repeat(1000);
    await store.insert('b', [
      testEvent({ comm: 'old', attrs: { path: big } }),
      testEvent({ comm: 'mid', attrs: { path: big } }),
      testEvent({ comm: 'new', attrs: { path: big } }),
    ]);
    const started = await spool({ maxBytes: 2500 });
    assert.deepEqual(await started.tick(), { unclaimed: 0, overflowed: 1 });
    assert.deepEqual(await states(store), [
      ['old', 'overflowed'],
      ['mid', 'pending'],
      ['new', 'pending'],
    ]);
    assert.equal(started.stats.events, 2);
    const [counter] = await readRows<{ value: bigint }>(
      store.connection,
      sql`SELECT value FROM producer_counters WHERE source = 'spool' AND counter = 'overflowed'`,
    );
    assert.equal(counter?.value, 1n);
  });

  it('keeps what no binding claimed within the TTL as unclaimed, counted but not a coverage gap', async function () {
    await store.insert('old', [testEvent({ comm: 'stale' })], undefined, nowNs() - 120_000_000_000n);
    await store.insert('new', [testEvent({ comm: 'fresh' })], undefined, nowNs());
    const started = await spool({ ttlMs: 60_000 });
    assert.deepEqual(await started.tick(), { unclaimed: 1, overflowed: 0 });
    assert.deepEqual(await states(store), [
      ['stale', 'unclaimed'],
      ['fresh', 'pending'],
    ]);
    const gaps = await readRows(store.connection, sql`SELECT * FROM coverage_gaps`);
    assert.deepEqual(gaps, [], 'host activity that belongs to no run is not capture loss');
    const counters = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT counter, value FROM producer_counters WHERE source = 'spool'`,
    );
    assert.deepEqual(counters, [{ counter: 'unclaimed', value: 1n }]);
  });

  it('keeps going when a recount after a commit fails, and repairs its totals at the next upkeep', async function () {
    const started = await spool({});
    await store.insert('b', [testEvent({ comm: 'a' }), testEvent({ comm: 'b' })]);
    await execute(store.connection, sql`ALTER TABLE events RENAME TO events_away`);
    await started.refresh(); // does not throw: the rows are committed whatever the totals say
    await execute(store.connection, sql`ALTER TABLE events_away RENAME TO events`);
    assert.equal(started.stats.events, 0, 'the failed recount left the totals as they were');
    await started.tick();
    assert.equal(started.stats.events, 2);
  });
});
