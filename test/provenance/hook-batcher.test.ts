/**
 * Hook events grouped into write transactions (hook-batcher.ts), on a real migrated DuckDB store and
 * the store's write queue: what arrives while a write runs is stored in one transaction, in order,
 * each caller answered with its own result; a batch holding a hostile event is stored again one by
 * one, so only that event fails.
 */
import assert from 'node:assert/strict';
import { HookBatcher } from '../../src/provenance/hooks/hook-batcher.js';
import type { HookWrite, HookWritten } from '../../src/provenance/hooks/hook-store.sql.js';
import { readRows, sql } from '../../src/store/sql.js';
import { WriteQueue } from '../../src/store/write-queue.js';
import { openTestStore, type TestStore } from '../support/store.js';
import { insertToolCallDecision } from '../../src/security/tool-call-decisions.sql.js';

const decision: HookWrite['decision'] = {
  decision: 'allow',
  rule_id: 'default_allow',
  reason: 'no rule matched',
  severity: 'info',
  advisory: null,
  policy: 'builtin',
  answered: 'allow',
};

/** A Claude Bash PreToolUse (or its PostToolUse) of call `id` in `runId`, received at `ns`. */
function hook(kind: 'pre_tool_use' | 'post_tool_use', id: string, ns: bigint, runId = 'run-b'): HookWrite {
  const pre = kind === 'pre_tool_use';
  return {
    run_id: runId,
    agent: 'claude',
    kind,
    native_event: pre ? 'PreToolUse' : 'PostToolUse',
    session_id: runId,
    cwd: '/work/proj',
    received_ns: String(ns),
    tool_use_id: id,
    tool_call_key: null,
    tool_name: 'Bash',
    input_json: JSON.stringify({ command: `echo ${id}` }),
    result_json: pre ? null : JSON.stringify({ stdout: id }),
    duration_ms: pre ? null : 3,
    failed: false,
    decision: pre ? decision : null,
    payload: { hook_event_name: pre ? 'PreToolUse' : 'PostToolUse', tool_use_id: id },
    texts: [],
    keep_text: false,
  };
}

describe('hook batcher', function () {
  let store: TestStore;
  let writes: WriteQueue;
  let ties: [string, bigint][];
  let batcher: HookBatcher;
  beforeEach(async () => {
    store = await openTestStore();
    writes = new WriteQueue();
    ties = [];
    batcher = new HookBatcher(
      store.connection,
      writes,
      (runId, sinceNs) => {
        ties.push([runId, sinceNs]);
        return Promise.resolve();
      },
      insertToolCallDecision,
    );
  });
  afterEach(() => store.close());

  const calls = (): Promise<{ tool_call_id: string; status: string; n: bigint }[]> =>
    readRows(
      store.connection,
      sql`SELECT t.tool_call_id, t.status, (SELECT count(*) FROM objects o
            WHERE o.kind = 'hook_content' AND json_extract_string(o.body, '$.payload.tool_call_id') = t.tool_call_id) AS n
          FROM tool_calls t ORDER BY t.tool_call_id`,
    );

  it('stores 50 PreToolUse and PostToolUse queued at once in one transaction, each call once with its result, and ties each run once', async function () {
    // a write already running: what arrives meanwhile waits for the next transaction
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = writes.run(() => held);
    const stored: Promise<HookWritten>[] = [];
    for (let i = 0; i < 50; i++) {
      const id = `toolu_${String(i).padStart(2, '0')}`;
      stored.push(
        batcher.store(hook('pre_tool_use', id, 1_000n + BigInt(i), i % 2 === 0 ? 'run-a' : 'run-b')),
      );
      stored.push(
        batcher.store(hook('post_tool_use', id, 2_000n + BigInt(i), i % 2 === 0 ? 'run-a' : 'run-b')),
      );
    }
    release();
    await running;
    const written = await Promise.all(stored);
    assert.equal(batcher.batches, 1);
    assert.equal(batcher.fallbacks, 0);
    written.forEach((one, i) => {
      assert.equal(one.tool_call_id, `toolu_${String(Math.floor(i / 2)).padStart(2, '0')}`);
      assert.equal(one.pre_tool_use_seen, true, `event ${i}: its PreToolUse was found in the same batch`);
    });
    const rows = await calls();
    assert.equal(rows.length, 50);
    for (const row of rows) assert.deepEqual([row.status, row.n], ['completed', 2n], row.tool_call_id);
    // each run's chain is one line of 150 objects (a tool call, its input, its result), in order
    const heads = await readRows<{ run_id: string; chain_index: bigint }>(
      store.connection,
      sql`SELECT run_id, chain_index FROM run_heads WHERE chain = 'context' ORDER BY run_id`,
    );
    assert.deepEqual(heads, [
      { run_id: 'run-a', chain_index: 74n },
      { run_id: 'run-b', chain_index: 74n },
    ]);
    assert.deepEqual(ties.sort(), [
      ['run-a', 1_000n],
      ['run-b', 1_001n],
    ]);
  });

  it('fails only the hostile event of a batch (a PreToolUse reusing a stored call id), storing its neighbours', async function () {
    await batcher.store(hook('pre_tool_use', 'toolu_taken', 500n));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = writes.run(() => held);
    const ids = ['toolu_a', 'toolu_b', 'toolu_taken', 'toolu_c', 'toolu_d'];
    const stored = ids.map((id, i) => batcher.store(hook('pre_tool_use', id, 1_000n + BigInt(i))));
    release();
    await running;
    const results = await Promise.allSettled(stored);
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    // each neighbour says it was stored alone (health's hooks.stored_alone counts them)
    for (const result of results)
      if (result.status === 'fulfilled') assert.equal(result.value.stored_alone, true);
    assert.equal(batcher.fallbacks, 1);
    assert.deepEqual(
      (await calls()).map(({ tool_call_id, status, n }) => [tool_call_id, status, n]),
      [
        ['toolu_a', 'asserted', 1n],
        ['toolu_b', 'asserted', 1n],
        ['toolu_c', 'asserted', 1n],
        ['toolu_d', 'asserted', 1n],
        ['toolu_taken', 'asserted', 1n],
      ],
    );
    // the chain holds the neighbours once each, after the first call: no object of the failed batch
    const [chain] = await readRows<{ objects: bigint; head: bigint }>(
      store.connection,
      sql`SELECT (SELECT count(*) FROM objects WHERE run_id = 'run-b' AND kind <> 'run') AS objects,
            (SELECT chain_index FROM run_heads WHERE run_id = 'run-b' AND chain = 'context') AS head`,
    );
    assert.deepEqual(chain, { objects: 10n, head: 9n });
  });

  it('keeps nothing in memory of a write that failed: a new run and its call are stored again, a PostToolUse ends the stored call or says its PreToolUse was never stored', async function () {
    await batcher.store(hook('pre_tool_use', 'toolu_taken', 500n));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = writes.run(() => held);
    // the new run's object and its call's object are written in the batch, then rolled back with it
    const stored = [
      batcher.store(hook('pre_tool_use', 'toolu_new', 1_000n, 'run-new')),
      batcher.store(hook('pre_tool_use', 'toolu_taken', 1_001n)),
    ];
    release();
    await running;
    assert.deepEqual(
      (await Promise.allSettled(stored)).map((result) => result.status),
      ['fulfilled', 'rejected'],
    );
    const post = await batcher.store(hook('post_tool_use', 'toolu_taken', 2_000n));
    assert.equal(post.pre_tool_use_seen, true);
    // a PreToolUse that fails alone after its tool_calls row was written (its decision not stored)
    const failing = new HookBatcher(
      store.connection,
      writes,
      () => Promise.resolve(),
      (connection, decided) =>
        decided.tool_call_id === 'toolu_doomed'
          ? Promise.reject(new Error('the decision is not stored'))
          : insertToolCallDecision(connection, decided),
    );
    await assert.rejects(failing.store(hook('pre_tool_use', 'toolu_doomed', 2_500n)), /not stored/);
    const orphan = await failing.store(hook('post_tool_use', 'toolu_doomed', 3_000n));
    assert.equal(orphan.pre_tool_use_seen, false, 'its PreToolUse was never stored');
    // each object's parents are stored: the run object under run-new's chain, the stored call under the result
    const dangling = await readRows<{ hash: string; kind: string }>(
      store.connection,
      sql`SELECT o.hash, o.kind FROM objects o, unnest(json_extract_string(o.body, '$.parents[*]')) AS p(parent)
          WHERE NOT EXISTS (SELECT 1 FROM objects q WHERE q.hash = p.parent)`,
    );
    assert.deepEqual(dangling, []);
    const [run] = await readRows<{ object_hash: string | null }>(
      store.connection,
      sql`SELECT object_hash FROM runs WHERE run_id = 'run-new'`,
    );
    assert.ok(run?.object_hash, 'run-new is stored with its run object');
  });
});
