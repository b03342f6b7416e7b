import assert from 'node:assert/strict';
import { readRows, sql } from '../../src/store/sql.js';
import { WriteQueue } from '../../src/store/write-queue.js';
import type { IngestCommit } from '../../src/telemetry/batch-commit.js';
import { EventCommitter, type CommitHooks } from '../../src/telemetry/event-commit.sql.js';
import { IngestLedger } from '../../src/telemetry/ingest-ledger.sql.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

describe('EventCommitter', function () {
  let store: TestStore;
  beforeEach(async function () {
    store = await openTestStore();
  });
  afterEach(function () {
    store.close();
  });

  const quietHooks: CommitHooks = {
    settleLagging: () => Promise.resolve(new Map()),
    committed: () => Promise.resolve(),
    recordVerdicts: () => Promise.resolve(),
  };

  function committer(hooks: CommitHooks = quietHooks): EventCommitter {
    return new EventCommitter(
      store.connection,
      new WriteQueue(),
      0n,
      new IngestLedger(store.connection),
      hooks,
    );
  }

  /** One request of `count` events as the router hands it over. */
  function request(name: string, count: number, key: string | null = null, linger = false): IngestCommit {
    const events = Array.from({ length: count }, (_v, i) => testEvent({ comm: `${name}-${i}` }));
    const file = store.writeRows(name, events);
    return {
      batches: [
        {
          batchId: name,
          file,
          accepted: count,
          pending: count,
          pendingBytes: 0,
          digests: [],
          counters: [],
          gaps: [],
          verdicts: [],
          bindingVersion: 0,
          ingestedNs: 0n,
        },
      ],
      answer: {
        schema_version: 'provenance.ingest/v1',
        batch_id: name,
        accepted: count,
        rejected: 0,
        pending: count,
        errors: [],
        errors_truncated: false,
      },
      idempotency: key === null ? null : { key, digest: `native:sha256:body-of-${key}` },
      linger,
    };
  }

  const stored = async (): Promise<number> =>
    Number((await readRows<{ n: bigint }>(store.connection, sql`SELECT count(*) AS n FROM events`))[0]!.n);

  it('answers a committed request as committed even when the work after COMMIT fails', async function () {
    const failing = committer({
      ...quietHooks,
      committed: () => Promise.reject(new Error('recount failed')),
    });
    const result = await failing.commit(request('a', 5), new AbortController().signal);
    assert.equal(result.answer.accepted, 5);
    assert.equal(await stored(), 5, 'stored once, not retried');
    assert.equal(failing.endSeq, 5n, 'its positions stay taken');
  });

  it('stores nothing of a request whose caller gave up before its commit started', async function () {
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(committer().commit(request('late', 5), abort.signal), {
      code: 'PROVD_ERR_STORE_TIMEOUT',
    });
    assert.equal(await stored(), 0);
  });

  it('stores once when one group holds the same key twice, and replays it to the second', async function () {
    const commits = committer();
    const signal = new AbortController().signal;
    // the first request occupies the committer; the next two wait and form one group
    const results = await Promise.all([
      commits.commit(request('x', 1), signal),
      commits.commit(request('y', 3, 'k'), signal),
      commits.commit(request('y2', 3, 'k'), signal),
    ]);
    assert.deepEqual(
      results.map((result) => [result.answer.batch_id, result.replayed]),
      [
        ['x', false],
        ['y', false],
        ['y', true],
      ],
    );
    assert.equal(await stored(), 4);
  });

  /** A committer that counts its groups (the `committed` hook runs once after each COMMIT). */
  function countingCommitter(): { commits: EventCommitter; groups: string[][] } {
    const groups: string[][] = [];
    const commits = committer({
      ...quietHooks,
      committed: (batches) => {
        groups.push(batches.map((batch) => batch.batchId));
        return Promise.resolve();
      },
    });
    return { commits, groups };
  }

  it('commits the sensor batches that linger together, in one group', async function () {
    const { commits, groups } = countingCommitter();
    const signal = new AbortController().signal;
    const results = await Promise.all([
      commits.commit(request('s1', 2, null, true), signal),
      commits.commit(request('s2', 3, null, true), signal),
    ]);
    assert.deepEqual(
      results.map((result) => result.answer.accepted),
      [2, 3],
    );
    assert.deepEqual(groups, [['s1', 's2']]);
    assert.equal(await stored(), 5);
  });

  it("commits a run's sensor batches handed over 2 s apart in one commit", async function () {
    // beside a watched agent a daemon's CPU went to its commits, one a second (bench capture-cpu)
    const { commits, groups } = countingCommitter();
    const signal = new AbortController().signal;
    const ofRun = (name: string): IngestCommit => {
      const commit = request(name, 2, null, true);
      commit.batches[0]!.pending = 0; // its events joined a run: not the spool's longer linger
      return commit;
    };
    const first = commits.commit(ofRun('s1'), signal);
    // set after the first's linger timer, due before it: timers fire in the order they are due
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await Promise.all([first, commits.commit(ofRun('s2'), signal)]);
    assert.deepEqual(groups, [['s1', 's2']]);
    assert.equal(await stored(), 4);
  });

  it('takes lingering batches along with a request someone waits on, at once', async function () {
    const { commits, groups } = countingCommitter();
    const signal = new AbortController().signal;
    const lingering = commits.commit(request('s1', 2, null, true), signal);
    await new Promise((resolve) => setImmediate(resolve)); // the batch is waiting, not yet committed
    await commits.commit(request('http', 4), signal);
    await lingering;
    assert.deepEqual(groups, [['s1', 'http']]);
    assert.equal(await stored(), 6);
  });

  it('commits lingering batches when flushed, and answers them', async function () {
    const { commits, groups } = countingCommitter();
    const lingering = commits.commit(request('s1', 2, null, true), new AbortController().signal);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(groups, [], 'the batch lingers');
    await commits.flush();
    assert.deepEqual(groups, [['s1']]);
    assert.equal((await lingering).answer.accepted, 2);
  });
});
