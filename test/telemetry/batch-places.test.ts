import assert from 'node:assert/strict';
import { readRows, sql } from '../../src/store/sql.js';
import { WriteQueue } from '../../src/store/write-queue.js';
import type { IngestCommit } from '../../src/telemetry/batch-commit.js';
import { BatchPlaces, type BatchPlace } from '../../src/telemetry/batch-places.sql.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { BindingStore } from '../../src/telemetry/binding-store.sql.js';
import { EventCommitter } from '../../src/telemetry/event-commit.sql.js';
import { readEvent } from '../../src/views/explain/explain-reads.sql.js';
import { IngestLedger } from '../../src/telemetry/ingest-ledger.sql.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

/** One request of `count` spooled events of cgroup `cgroup`, with its batch's digest, as the router hands it over. */
function request(store: TestStore, batchId: string, count: number, cgroup: string): IngestCommit {
  const events = Array.from({ length: count }, (_v, i) =>
    testEvent({ comm: `${batchId}-${i}`, cgroupId: cgroup, at: `2026-01-01T00:00:0${i}Z` }),
  );
  return {
    batches: [
      {
        batchId,
        file: store.writeRows(batchId, events),
        accepted: count,
        pending: count,
        pendingBytes: 0,
        digests: [
          { runId: null, events: count, merkleRoot: 'sha256:0', judged: 0, judgmentRoot: 'sha256:0' },
        ],
        counters: [],
        gaps: [],
        verdicts: [],
        bindingVersion: 0,
        ingestedNs: 0n,
      },
    ],
    answer: {
      schema_version: 'provenance.ingest/v1',
      batch_id: batchId,
      accepted: count,
      rejected: 0,
      pending: count,
      errors: [],
      errors_truncated: false,
    },
    idempotency: null,
    linger: false,
  };
}

const inOrder = (places: readonly BatchPlace[] | undefined): string[] =>
  (places ?? []).map(({ committed, from, to }) => `${committed} ${from} ${to}`).sort();

describe('BatchPlaces (where explain looks for an event first)', function () {
  let store: TestStore;
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(function () {
    store.close();
  });

  /** A committer and a binding store that tell `places` where they put events, as the telemetry module wires them. */
  function writers(places: BatchPlaces): { committer: EventCommitter; bindings: BindingStore } {
    const committer: EventCommitter = new EventCommitter(
      store.connection,
      new WriteQueue(),
      0n,
      new IngestLedger(store.connection),
      {
        settleLagging: () => Promise.resolve(new Map()),
        committed: () => Promise.resolve(),
        recordVerdicts: () => Promise.resolve(),
        placed: (batchId, seqFrom, seqTo) => places.committed(batchId, seqFrom, seqTo),
      },
    );
    const bindings = new BindingStore(
      store.connection,
      (count) => committer.allocateSeq(count),
      undefined,
      places,
    );
    return { committer, bindings };
  }

  it('holds what the tables hold after commits and a settlement, and an event is read the same with it or without', async function () {
    const places = new BatchPlaces();
    await places.load(store.connection);
    const { committer, bindings } = writers(places);
    const signal = new AbortController().signal;
    await committer.commit(request(store, 'batch-a', 4, '700'), signal);
    await committer.commit(request(store, 'batch-b', 3, '800'), signal);
    const bind = parseBindRequest({ run_id: 'run-1', tool_call_id: 'tc', cgroup_id: '700' }, 1n);
    if (isBindRequestError(bind)) throw new Error(bind.message);
    assert.equal(await bindings.bind(bind), 4, 'batch-a settled: its events moved past every position');

    const loaded = new BatchPlaces();
    await loaded.load(store.connection);
    const batches = await readRows<{ batch_id: string }>(
      store.connection,
      sql`SELECT batch_id FROM event_batches UNION SELECT batch_id FROM settled_ranges`,
    );
    assert.ok(batches.length >= 3, 'two commits and the settlement');
    for (const { batch_id } of [...batches, { batch_id: 'never-stored' }])
      assert.deepEqual(inOrder(places.placesOf(batch_id)), inOrder(loaded.placesOf(batch_id)), batch_id);
    assert.deepEqual(
      inOrder(places.placesOf('batch-a')).map((place) => place.split(' ')[0]),
      ['false', 'true'],
      'where it was committed, and the time span it was settled in',
    );

    const ids = await readRows<{ id: string }>(store.connection, sql`SELECT id FROM events ORDER BY seq`);
    for (const id of [...ids.map((row) => row.id), 'batch-a.99', 'never-stored.0', 'no-dot'])
      assert.deepEqual(
        await readEvent(store.connection, id, places),
        await readEvent(store.connection, id),
        id,
      );
  });

  it('asks the store for a batch it no longer keeps: past its bound, or after a write rolled back', async function () {
    const places = new BatchPlaces(2);
    await places.load(store.connection);
    assert.deepEqual(places.placesOf('unknown'), [], 'an empty store: every batch is kept, none has a place');
    places.committed('one', 0n, 10n);
    places.committed('two', 10n, 20n);
    assert.deepEqual(places.placesOf('unknown'), []);
    places.committed('three', 20n, 30n);
    assert.equal(places.placesOf('one'), undefined, 'the oldest was forgotten');
    assert.equal(places.placesOf('unknown'), undefined, 'so a batch not kept may be one of those');
    assert.deepEqual(inOrder(places.placesOf('three')), ['true 20 29']);

    const fresh = new BatchPlaces();
    await fresh.load(store.connection);
    fresh.forgetCompleteness();
    assert.equal(fresh.placesOf('unknown'), undefined);
  });
});
