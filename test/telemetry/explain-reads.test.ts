import assert from 'node:assert/strict';
import { execute, sql } from '../../src/store/sql.js';
import { typeCode } from '../../src/model/codes.js';
import { sealRows, type Sealed } from '../../src/views/explain/explain-reads.sql.js';
import {
  readProcessEvents,
  type ProcessLookup,
  type ProcessRow,
} from '../../src/views/explain/process-reads.sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

const second = 1_000_000_000n;
const execve = typeCode('execve');
const fileOpen = typeCode('file_open');

/**
 * Processes of run-1 and of no run, and batches sealing some of their positions: two that overlap
 * at seq 0 (the first in table order seals it, as sealRows finds it), one of another run, and
 * positions no batch holds.
 */
async function fill(store: TestStore): Promise<void> {
  const events: [seq: number, run: string | null, type: number, tgid: number, ppid: number, at: bigint][] = [
    [0, 'run-1', execve, 10, 1, 1n],
    [1, 'run-1', execve, 11, 10, 2n],
    [2, 'run-1', fileOpen, 11, 10, 3n],
    [3, 'run-2', execve, 11, 10, 2n],
    [5, 'run-1', execve, 12, 11, 3n],
    [6, 'run-1', fileOpen, 12, 11, 4n],
    [7, null, execve, 20, 1, 1n],
  ];
  for (const [seq, run, type, tgid, ppid, at] of events)
    await execute(
      store.connection,
      sql`INSERT INTO events (id, seq, run_id, type, source, time, time_ns, ingested_ns, pid, tgid, ppid, comm,
            corr_method, evidence_level, spool_state, attrs, hash)
          VALUES (${`b.${seq}`}, ${BigInt(seq)}, ${run}, ${type}, 0, '2026-01-01T00:00:00Z', ${at * second}, 0,
            ${tgid}, ${tgid}, ${ppid}, 'p', 0, 1, 0, '{}', 'sha256:0')`,
    );
  const batches: [run: string, from: number, to: number, hash: string | null][] = [
    ['run-1', 0, 2, 'sha256:first'],
    ['run-1', 2, 5, null],
    ['run-1', 0, 1, 'sha256:overlapping'],
    ['run-2', 3, 4, 'sha256:other-run'],
  ];
  for (const [run, from, to, hash] of batches)
    await execute(
      store.connection,
      sql`INSERT INTO event_batches (batch_id, run_id, events, merkle_root, committed_ns, seq_from, seq_to, object_hash)
          VALUES ('b', ${run}, ${BigInt(to - from)}, 'sha256:0', 0, ${BigInt(from)}, ${BigInt(to)}, ${hash})`,
    );
}

/** The rows as sealRows seals them, read on their own. */
async function sealedApart(
  store: TestStore,
  rows: readonly (Sealed<ProcessRow> | undefined)[],
): Promise<(string | null | undefined)[]> {
  const found = rows.filter((row): row is Sealed<ProcessRow> => row !== undefined);
  const sealed = await sealRows(
    store.connection,
    found.map(({ sealed_by: _s, ...row }) => row),
  );
  return rows.map((row) => (row === undefined ? undefined : sealed[found.indexOf(row)]!.sealed_by));
}

describe('readProcessEvents (explain: a process and its parent, with their seals)', function () {
  let store: TestStore;
  before(async function () {
    store = await openTestStore();
    await fill(store);
  });
  after(function () {
    store.close();
  });

  it('seals each process row it finds as sealRows would, read alone', async function () {
    const cases: [run: string | null, lookups: ProcessLookup[], unfoldedFrom: bigint | null][] = [
      [
        'run-1',
        [
          { tgid: 11, beforeNs: 3n * second },
          { tgid: 10, beforeNs: 3n * second, guess: true },
        ],
        null,
      ],
      [
        'run-1',
        [
          { tgid: 11, beforeNs: 3n * second },
          { tgid: 10, beforeNs: 3n * second, guess: true },
        ],
        0n,
      ],
      ['run-1', [{ tgid: 12, beforeNs: 4n * second }], 6n],
      ['run-1', [{ tgid: 99, beforeNs: 4n * second }], null],
      ['run-2', [{ tgid: 11, beforeNs: 3n * second }], 0n],
      [null, [{ tgid: 20, beforeNs: 2n * second }], null],
    ];
    const seals: (string | null | undefined)[][] = [];
    for (const [run, lookups, unfoldedFrom] of cases) {
      const found = await readProcessEvents(store.connection, run, lookups, unfoldedFrom, new Map());
      assert.equal(found.length, lookups.length);
      assert.deepEqual(
        found.map((row) => row?.sealed_by),
        await sealedApart(store, found),
      );
      seals.push(found.map((row) => row?.sealed_by));
    }
    // the execs of 11 and 10 sit in the first batch (seq 0 in the overlapping one too); 12 in none;
    // 99 is nobody; run-2's exec in its own; a row of no run in none
    assert.deepEqual(seals, [
      ['sha256:first', 'sha256:first'],
      ['sha256:first', 'sha256:first'],
      [null],
      [undefined],
      ['sha256:other-run'],
      [null],
    ]);
  });
});
