/**
 * The gaps of PreToolUse events answered and then not stored (src/agents/unstored-hooks.ts), when
 * the store refuses the gap's write too: kept, merged per run, and written whole once it takes
 * writes again, one write at a time. The store here is a stand-in that refuses or records each
 * `hookLoss` it is sent; the real store's write of the gap is in hooks-route.test.ts.
 */
import assert from 'node:assert/strict';
import { UnstoredHooks } from '../../src/agents/unstored-hooks.js';
import type { HookLoss } from '../../src/telemetry/hook-loss.sql.js';

/** A store that refuses what it is sent while `refusing`, records what it took, and counts writes in flight. */
function standInStore(): {
  client: ConstructorParameters<typeof UnstoredHooks>[0];
  taken: HookLoss[];
  state: { refusing: boolean; inFlight: number; mostInFlight: number };
} {
  const taken: HookLoss[] = [];
  const state = { refusing: true, inFlight: 0, mostInFlight: 0 };
  const queryJson = async (_kind: string, loss: HookLoss): Promise<{ gaps: number }> => {
    const refused = state.refusing;
    state.inFlight++;
    state.mostInFlight = Math.max(state.mostInFlight, state.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    state.inFlight--;
    if (refused) throw new Error('the store refused the write (stand-in)');
    taken.push(loss);
    return { gaps: loss.gaps.length };
  };
  return { client: { queryJson } as unknown as ConstructorParameters<typeof UnstoredHooks>[0], taken, state };
}

describe('hook events not stored after their answer', function () {
  it('keeps their gaps while the store refuses them too, and writes them whole, per run, once it takes writes', async function () {
    const store = standInStore();
    const unstored = new UnstoredHooks(store.client);
    unstored.add('run-a', '2000', 'toolu_2', new Error('first'));
    unstored.add('run-b', '1500', null, new Error('no id'));
    unstored.add('run-a', '1000', 'toolu_1', new Error('last'));
    await unstored.write();
    assert.deepEqual([store.taken.length, unstored.count, unstored.unwrittenRuns], [0, 3, 2]);

    store.state.refusing = false;
    await Promise.all([unstored.write(), unstored.write()]);
    assert.equal(store.state.mostInFlight, 1, 'one write at a time');
    assert.equal(store.taken.length, 1, 'the second call found nothing left to write');
    const [loss] = store.taken;
    assert.deepEqual(loss!.counters, [{ source: 'hook_store', counter: 'failed_after_answer', value: 3 }]);
    assert.deepEqual(
      [...loss!.gaps]
        .sort((a, b) => String(a.run_id).localeCompare(String(b.run_id)))
        .map((gap) => [
          gap.kind,
          gap.run_id,
          gap.start_ns,
          gap.end_ns,
          gap.events,
          gap.detail['tool_call_ids'],
        ]),
      [
        ['hook_store_failed', 'run-a', '1000', '2000', 2, ['toolu_2', 'toolu_1']],
        ['hook_store_failed', 'run-b', '1500', '1500', 1, []],
      ],
    );
    assert.match(String(loss!.gaps.find((gap) => gap.run_id === 'run-a')!.detail['last_error']), /last/);
    assert.equal(unstored.unwrittenRuns, 0);
    await unstored.write();
    assert.equal(store.taken.length, 1, 'nothing written twice');
  });

  it('counts every call of a run and names its first 20', async function () {
    const store = standInStore();
    const unstored = new UnstoredHooks(store.client);
    for (let i = 0; i < 25; i++) unstored.add('run-a', String(1000 + i), `toolu_${i}`, 'refused');
    store.state.refusing = false;
    await unstored.write();
    const gaps = store.taken.flatMap((loss) => loss.gaps);
    assert.deepEqual([gaps.length, gaps[0]!.events], [1, 25]);
    const ids = gaps.flatMap((gap) => gap.detail['tool_call_ids'] as string[]);
    assert.deepEqual(
      ids,
      Array.from({ length: 20 }, (_, i) => `toolu_${i}`),
    );
  });
});
