import assert from 'node:assert/strict';
import { execute, readRows, sql } from '../../src/store/sql.js';
import type { BatchCommit } from '../../src/telemetry/batch-commit.js';
import { isBindRequestError, parseBindRequest, type Binding } from '../../src/telemetry/binding.js';
import { buildCorrelations } from '../../src/telemetry/binding-index.js';
import { BindingStore, settleChunkRows } from '../../src/telemetry/binding-store.sql.js';
import { evidenceName, methodName, spoolName, typeCode } from '../../src/model/codes.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

let created = 0n;
function binding(body: Record<string, unknown>): Binding {
  const parsed = parseBindRequest({ run_id: 'run-1', tool_call_id: 'tc-1', ...body }, ++created);
  if (isBindRequestError(parsed)) throw new Error(parsed.message);
  return parsed;
}

/** A batch as the committer hands it to settleLagging: `pending` rows, correlated at `bindingVersion`. */
function batch(batchId: string, pending: number, bindingVersion: number): BatchCommit {
  return {
    batchId,
    file: null,
    accepted: pending,
    pending,
    pendingBytes: 0,
    digests: [],
    counters: [],
    gaps: [],
    verdicts: [],
    bindingVersion,
    ingestedNs: 0n,
  };
}

/** Each event's comm with where it stands now: run, method, evidence level, spool state. */
async function placement(store: TestStore): Promise<Record<string, [string | null, string, string, string]>> {
  const out: Record<string, [string | null, string, string, string]> = {};
  for (const row of await store.rows()) {
    out[row['comm'] as string] = [
      row['run_id'] as string | null,
      methodName(row['corr_method'] as number),
      evidenceName(row['evidence_level'] as number),
      spoolName(row['spool_state'] as number),
    ];
  }
  return out;
}

describe('BindingStore', function () {
  let store: TestStore;
  let bindings: BindingStore;
  beforeEach(async function () {
    store = await openTestStore();
    bindings = new BindingStore(store.connection, (count) => store.allocateSeq(count));
  });
  afterEach(function () {
    store.close();
  });

  it('settles spooled events by each key and tier when their binding arrives late', async function () {
    await store.insert('b', [
      testEvent({ comm: 'by-pid', pid: 4242, tgid: 1, ppid: 1 }),
      testEvent({ comm: 'by-tgid', pid: 1, tgid: 4242, ppid: 1 }),
      testEvent({ comm: 'by-ppid', pid: 1, tgid: 1, ppid: 4242 }),
      testEvent({ comm: 'by-root', pid: 1, tgid: 1, ppid: 77 }),
      testEvent({ comm: 'by-cgroup', cgroupId: '888' }),
      testEvent({ comm: 'by-container', containerId: 'docker://ABCDEF0123456789' }),
      testEvent({ comm: 'by-exec', attrs: { exec_id: 'exec-9' } }),
      testEvent({ comm: 'by-process-pid', pid: 6001, tgid: 6000 }),
      testEvent({ comm: 'nobody', pid: 9, tgid: 9, ppid: 9 }),
    ]);
    assert.equal(await bindings.bind(binding({ pid: 4242, root_pid: 77 })), 4);
    assert.equal(await bindings.bind(binding({ run_id: 'run-2', cgroup_id: '888' })), 1);
    assert.equal(await bindings.bind(binding({ run_id: 'run-3', container_id: 'abcdef012345' })), 1);
    assert.equal(await bindings.bind(binding({ run_id: 'run-4', process_id: 'exec-9' })), 1);
    const asserted = binding({ run_id: 'run-5', process_id: '6000', binding_source: 'ai_asserted' });
    assert.equal(await bindings.bind(asserted), 1);
    assert.deepEqual(await placement(store), {
      'by-pid': ['run-1', 'pid', 'kernel_correlated', 'settled'],
      'by-tgid': ['run-1', 'pid', 'kernel_correlated', 'settled'],
      'by-ppid': ['run-1', 'pid', 'kernel_correlated', 'settled'],
      'by-root': ['run-1', 'pid', 'kernel_correlated', 'settled'],
      'by-cgroup': ['run-2', 'cgroup', 'kernel_correlated', 'settled'],
      'by-container': ['run-3', 'container', 'kernel_correlated', 'settled'],
      'by-exec': ['run-4', 'process', 'kernel_correlated', 'settled'],
      'by-process-pid': ['run-5', 'process', 'context_asserted', 'settled'],
      nobody: [null, 'none', 'uncorrelated', 'pending'],
    });
    const confidence = await readRows<{ comm: string; corr_confidence: number }>(
      store.connection,
      sql`SELECT comm, corr_confidence FROM events WHERE comm IN ('by-pid', 'by-cgroup', 'by-container', 'by-process-pid')
          ORDER BY comm`,
    );
    // min(tier, binding): pid 0.85, cgroup 0.98, container 0.92; an ai_asserted binding caps at 0.5
    assert.deepEqual(
      confidence.map((row) => [row.comm, row.corr_confidence]),
      [
        ['by-cgroup', 0.98],
        ['by-container', 0.92],
        ['by-pid', 0.85],
        ['by-process-pid', 0.5],
      ],
    );
  });

  it('leaves events outside the binding interval in the spool, with both ends inclusive', async function () {
    await store.insert('b', [
      testEvent({ comm: 'before', at: '2026-01-01T00:00:09.999999999Z', cgroupId: '1' }),
      testEvent({ comm: 'start', at: '2026-01-01T00:00:10Z', cgroupId: '1' }),
      testEvent({ comm: 'end', at: '2026-01-01T00:00:20.999999999Z', cgroupId: '1' }),
      testEvent({ comm: 'after', at: '2026-01-01T00:00:21Z', cgroupId: '1' }),
    ]);
    // a whole-second ended_at covers its whole second
    await bindings.bind(
      binding({ cgroup_id: '1', started_at: '2026-01-01T00:00:10Z', ended_at: '2026-01-01T00:00:20Z' }),
    );
    const states = Object.fromEntries(
      Object.entries(await placement(store)).map(([comm, [, , , state]]) => [comm, state]),
    );
    assert.deepEqual(states, { before: 'pending', start: 'settled', end: 'settled', after: 'pending' });
  });

  it('gives settled events new keyset positions after everything stored, in their old order', async function () {
    await store.insert('a', [
      testEvent({ comm: 'a0', cgroupId: '5' }),
      testEvent({ comm: 'a1', cgroupId: '6' }),
    ]);
    await store.insert('b', [
      testEvent({ comm: 'b0', cgroupId: '5' }),
      testEvent({ comm: 'b1', cgroupId: '5' }),
    ]);
    const before = store.nextSeq;
    await bindings.bind(binding({ cgroup_id: '5' }));
    const rows = await store.rows("run_id = 'run-1'");
    assert.deepEqual(
      rows.map((row) => [row['comm'], row['seq']]),
      [
        ['a0', before],
        ['b0', before + 1n],
        ['b1', before + 2n],
      ],
    );
    assert.equal(store.nextSeq, before + 3n);
  });

  it('counts settled events into windows, digests and the spool counter', async function () {
    await store.insert('b', [
      testEvent({
        comm: 'x',
        cgroupId: '5',
        at: '2026-01-01T00:00:05Z',
        type: 'secret_path',
        attrs: { bytes: 10 },
      }),
      testEvent({ comm: 'y', cgroupId: '5', at: '2026-01-01T00:00:15Z', attrs: { length: 7 } }),
    ]);
    await bindings.bind(binding({ cgroup_id: '5' }));
    const windows = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT window_s, bucket_ns, type, events, correlated, risky, bytes FROM windows
          ORDER BY window_s, bucket_ns, type`,
    );
    const t0 = 1_767_225_600_000_000_000n;
    const [execve, secretPath] = [typeCode('execve'), typeCode('secret_path')];
    assert.deepEqual(
      windows.map((w) => Object.values(w)),
      [
        [10, t0, secretPath, 1n, 1n, 1n, 10n],
        [10, t0 + 10_000_000_000n, execve, 1n, 1n, 0n, 7n],
        [60, t0, execve, 1n, 1n, 0n, 7n],
        [60, t0, secretPath, 1n, 1n, 1n, 10n],
      ],
    );
    const digests = await readRows<{ run_id: string; events: bigint }>(
      store.connection,
      sql`SELECT run_id, events FROM event_batches`,
    );
    assert.deepEqual(digests, [{ run_id: 'run-1', events: 2n }]);
    const [counter] = await readRows<{ value: bigint }>(
      store.connection,
      sql`SELECT value FROM producer_counters WHERE source = 'spool' AND counter = 'correlated'`,
    );
    assert.equal(counter?.value, 2n);
  });

  it('counts a settlement larger than one read chunk exactly once into windows and digests', async function () {
    const count = 2 * settleChunkRows + 1234;
    const events = Array.from({ length: count }, (_v, i) =>
      testEvent({ comm: `e${i}`, cgroupId: '5', at: `2026-01-01T00:0${Math.floor((i / count) * 6)}:00Z` }),
    );
    await store.insert('big', events);
    assert.equal(await bindings.bind(binding({ cgroup_id: '5' })), count);
    const [windows] = await readRows<{ w10: bigint; w60: bigint }>(
      store.connection,
      sql`SELECT sum(events) FILTER (window_s = 10) AS w10, sum(events) FILTER (window_s = 60) AS w60 FROM windows`,
    );
    assert.deepEqual(windows, { w10: BigInt(count), w60: BigInt(count) });
    const digests = await readRows<{ events: bigint }>(
      store.connection,
      sql`SELECT events FROM event_batches ORDER BY batch_id`,
    );
    assert.equal(digests.length, 3, 'one digest per chunk');
    assert.equal(
      digests.reduce((sum, row) => sum + row.events, 0n),
      BigInt(count),
    );
  });

  it('re-checks only the batches a lagging replica correlated, against the bindings it lacked', async function () {
    const early = binding({ cgroup_id: 'early', pid: 7 });
    await bindings.bind(early);
    await bindings.bind(binding({ run_id: 'run-late', cgroup_id: 'late' }));
    // the workers saw one binding (version 1) for "lagging" and "placed", both (version 2) for "current"
    const fromSeq = store.nextSeq;
    await store.insert('lagging', [
      testEvent({ comm: 'lag', cgroupId: 'late' }),
      testEvent({ comm: 'lag-too', cgroupId: 'late', pid: 4242 }),
    ]);
    // a row the worker placed already stays where it is, though a lacked binding could claim it too
    await store.insert(
      'placed',
      [testEvent({ comm: 'placed', cgroupId: 'late', pid: 7 })],
      buildCorrelations(early).pid,
    );
    await store.insert('current', [testEvent({ comm: 'cur', cgroupId: 'late' })]);
    const before = store.nextSeq;
    const settled = await bindings.settleLagging(
      [batch('lagging', 2, 1), batch('placed', 1, 1), batch('current', 1, 2)],
      fromSeq,
    );
    assert.deepEqual(Object.fromEntries(settled), { lagging: 2 });
    const places = await placement(store);
    assert.deepEqual(places['placed'], ['run-1', 'pid', 'kernel_correlated', 'settled']);
    assert.deepEqual(places['lag'], ['run-late', 'cgroup', 'kernel_correlated', 'settled']);
    assert.deepEqual(places['cur']?.[3], 'pending', 'a replica that held every binding is trusted');
    const moved = await store.rows("run_id = 'run-late'");
    assert.deepEqual(
      moved.map((row) => [row['comm'], row['seq']]),
      [
        ['lag', before],
        ['lag-too', before + 1n],
      ],
      'new keyset positions after everything stored, in the old order',
    );
  });

  it('keeps the index and the tables unchanged when a bind fails', async function () {
    await bindings.bind(binding({ run_id: 'run-0', cgroup_id: 'other' }));
    await store.insert('b', [testEvent({ comm: 'x', cgroupId: '5' })]);
    await execute(store.connection, sql`DROP TABLE event_batches`); // settling will fail on its digests
    const failing = binding({ cgroup_id: '5' });
    await assert.rejects(bindings.bind(failing));
    assert.equal(bindings.version, 1);
    assert.equal(bindings.records().length, 1);
    assert.deepEqual(await readRows(store.connection, sql`SELECT run_id FROM bindings`), [
      { run_id: 'run-0' },
    ]);
    assert.deepEqual(await readRows(store.connection, sql`SELECT run_id FROM runs`), [{ run_id: 'run-0' }]);
    assert.equal((await placement(store))['x']?.[3], 'pending');
    // nor does a re-check for a replica that saw no binding use it
    const fromSeq = store.nextSeq;
    await store.insert('lagging', [testEvent({ comm: 'y', cgroupId: '5' })]);
    assert.deepEqual(Object.fromEntries(await bindings.settleLagging([batch('lagging', 1, 0)], fromSeq)), {});
  });
});
