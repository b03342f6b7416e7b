import assert from 'node:assert/strict';
import { appendToChains, type ChainEntry, type ChainName } from '../../src/provenance/graph-chains.sql.js';
import { inTransaction, readRows, sql } from '../../src/store/sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

/** An entry of a run's chain (run-g's context chain unless given) whose payload names `label`. */
const entry = (label: string, runId = 'run-g', chain: ChainName = 'context'): ChainEntry => ({
  runId,
  chain,
  build: (previous, index) => ({
    kind: 'binding',
    run_id: runId,
    parents: [previous],
    payload: { index, label },
  }),
});

describe('graph chains', function () {
  let store: TestStore;
  beforeEach(async () => (store = await openTestStore()));
  afterEach(() => store.close());

  it('chains after the last committed head when a transaction that moved it rolls back', async function () {
    const { connection } = store;
    const [first] = await inTransaction(connection, () => appendToChains(connection, [entry('first')]));
    await assert.rejects(
      inTransaction(connection, async () => {
        await appendToChains(connection, [entry('rolled back')]);
        throw new Error('the commit fails after the append');
      }),
      /the commit fails after the append/,
    );
    const [second] = await inTransaction(connection, () => appendToChains(connection, [entry('second')]));
    const body = JSON.parse(second!.body) as { parents: string[]; payload: { index: number } };
    assert.deepEqual([body.parents[0], body.payload.index], [first!.hash, 1]);
    const heads = await readRows<{ hash: string; chain_index: bigint }>(
      connection,
      sql`SELECT hash, chain_index FROM run_heads WHERE run_id = 'run-g' AND chain = 'context'`,
    );
    assert.deepEqual(heads, [{ hash: second!.hash, chain_index: 1n }]);
    const objects = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM objects WHERE run_id = 'run-g' AND kind = 'binding'`,
    );
    assert.equal(objects[0]!.n, 2n, 'nothing of the rolled back append was stored');
  });

  it('chains each of more runs than it keeps heads of in one append after their heads were forgotten', async function () {
    const { connection } = store;
    const runs = Array.from({ length: 10_050 }, (_v, i) => `run-${i}`);
    await inTransaction(connection, () =>
      appendToChains(
        connection,
        runs.map((run) => entry('a', run)),
      ),
    );
    // a rolled back transaction forgets every kept head: the next append reads them all back
    await assert.rejects(
      inTransaction(connection, () => Promise.reject(new Error('rolled back'))),
      /rolled back/,
    );
    const second = await inTransaction(connection, () =>
      appendToChains(
        connection,
        runs.map((run) => entry('b', run)),
      ),
    );
    assert.deepEqual(new Set(second.map((object) => object.chainIndex)), new Set([1]));
  });

  it("moves each chain's own head when one append moves heads stored already, of several runs and chains", async function () {
    const { connection } = store;
    const heads = (): Promise<{ run_id: string; chain: string; hash: string; chain_index: bigint }[]> =>
      readRows(
        connection,
        sql`SELECT run_id, chain, hash, chain_index FROM run_heads ORDER BY run_id, chain`,
      );
    // 3 heads (a VALUES list), then 9 (unnested lists): both ways of updating the stored heads at once
    for (const runs of [
      ['run-x', 'run-y'],
      ['run-0', 'run-1', 'run-2', 'run-3', 'run-4'],
    ]) {
      const chains = (label: string): ChainEntry[] =>
        runs.flatMap((run, i) =>
          i === 1 ? [entry(label, run)] : [entry(label, run), entry(`${label} batch`, run, 'event_batch')],
        );
      await inTransaction(connection, () => appendToChains(connection, chains('first')));
      const second = await inTransaction(connection, () => appendToChains(connection, chains('second')));
      const moved = chains('second').map((one, i) => ({
        run_id: one.runId,
        chain: one.chain,
        hash: second[i]!.hash,
        chain_index: 1n,
      }));
      assert.deepEqual(
        (await heads()).filter(({ run_id }) => runs.includes(run_id)),
        moved.sort((a, b) => `${a.run_id} ${a.chain}`.localeCompare(`${b.run_id} ${b.chain}`)),
      );
    }
  });
});
