import assert from 'node:assert/strict';
import { execute, readRows, sql } from '../../src/store/sql.js';
import {
  judgedEventColumns,
  pageJudgedEvents,
  type DecisionRow,
  type JudgedEvent,
  type JudgedPage,
} from '../../src/security/judged-events.sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

/** Positions 0..199,999: past the first probe window (65,536), so a sparse run needs a wider one. */
const stored = 200_000;
const endSeq = BigInt(stored);

/**
 * Three runs interleaved over every position: `dense` judged every 7th of its events, `other` every
 * 3rd (its decisions fall in the dense pages' seq ranges), `sparse` 4 events, all judged, past the
 * first window. Each judged event has its decision, but for two dense ones, deleted with the event
 * still judged (as verify's tamper tests do).
 */
async function fill(store: TestStore): Promise<void> {
  await execute(
    store.connection,
    sql`INSERT INTO events (id, seq, run_id, type, source, time, time_ns, ingested_ns, tool_call_id,
          corr_method, evidence_level, spool_state, attrs, hash, judged)
        SELECT 'b' || (range // 1000) || '.' || (range % 1000), range, run_id, range % 5, 0,
          '2026-01-01T00:00:00.' || lpad(CAST(range AS VARCHAR), 9, '0') || 'Z', range, 0,
          'tc-' || (range % 3), 0, range % 4, 0, '{}', 'sha256:' || range,
          CASE run_id WHEN 'dense' THEN range % 7 = 0 WHEN 'other' THEN range % 3 = 0 ELSE true END
        FROM (SELECT range, CASE WHEN range % 40_000 = 39_999 AND range > 65_536 THEN 'sparse'
                WHEN range % 10 = 9 THEN 'other' ELSE 'dense' END AS run_id FROM range(${stored}))`,
  );
  await execute(
    store.connection,
    sql`INSERT INTO policy_decisions (event_id, event_hash, decision, rule_id, severity, reason,
          advisory_rule_id, advisory_decision, advisory_reason, policy, decided_ns, run_id, seq)
        SELECT id, hash, CASE WHEN seq % 2 = 0 THEN 'deny' ELSE 'allow' END, 'rule-' || (seq % 5),
          'high', 'reason ' || seq, CASE WHEN seq % 2 = 1 THEN 'watch' END,
          CASE WHEN seq % 2 = 1 THEN 'deny' END, CASE WHEN seq % 2 = 1 THEN 'watched' END,
          'built-in', seq * 10, run_id, seq
        FROM events WHERE judged ORDER BY seq`,
  );
  await execute(store.connection, sql`DELETE FROM policy_decisions WHERE seq IN (700, 1400)`);
}

/** The page by its definition, over every row: the first `limit` judged events of the run after `after`, those with a decision. */
function expectedPage(
  all: readonly JudgedEvent[],
  decisions: ReadonlyMap<string, DecisionRow>,
  run: string | null,
  after: bigint,
  limit: number,
): JudgedPage {
  const rest = all.filter((event) => (run === null || event.run_id === run) && event.seq > after);
  const page = rest.slice(0, limit);
  return {
    judged: page.flatMap((event) => {
      const decision = decisions.get(event.id);
      return decision === undefined ? [] : [{ event, decision }];
    }),
    hasMore: rest.length > limit,
    lastSeq: page.at(-1)?.seq ?? null,
    commands: new Map(), // provd ran none of these tool calls
  };
}

describe('a page of judged events (risks, responses and audit associations read it)', function () {
  let store: TestStore;
  let all: JudgedEvent[];
  let decisions: Map<string, DecisionRow>;
  before(async function () {
    store = await openTestStore();
    await fill(store);
    all = await readRows<JudgedEvent>(
      store.connection,
      sql`SELECT seq, id, run_id, type, time, pid, cgroup_id, container_id, tool_call_id, binding_id,
            evidence_level, hash FROM events WHERE judged ORDER BY seq`,
    );
    const rows = await readRows<DecisionRow>(
      store.connection,
      sql`SELECT event_id, event_hash, decision, rule_id, severity, reason, advisory_rule_id,
            advisory_decision, advisory_reason, policy, decided_ns FROM policy_decisions`,
    );
    decisions = new Map(rows.map((row) => [row.event_id, row]));
  });
  after(function () {
    store.close();
  });

  it('matches the definition for every cursor position and limit, runs with few risks and none included', async function () {
    const sparse = all.filter((event) => event.run_id === 'sparse').map((event) => event.seq);
    assert.equal(sparse.length, 4, 'the sparse run sits past the first window');
    const lastDense = all.filter((event) => event.run_id === 'dense').at(-1)!.seq;
    const afters = [
      -1n,
      0n,
      1n,
      699n,
      700n,
      1399n,
      65_535n,
      65_536n,
      sparse[0]!,
      sparse[3]!,
      lastDense,
      endSeq,
    ];
    for (const run of ['dense', 'other', 'sparse', 'nobody', null])
      for (const after of afters)
        for (const limit of [1, 3, 100, 1000]) {
          const page = await pageJudgedEvents(
            store.connection,
            run,
            after,
            limit,
            endSeq,
            judgedEventColumns,
          );
          assert.deepEqual(
            page,
            expectedPage(all, decisions, run, after, limit),
            `${run} after ${after}, ${limit}`,
          );
        }
  });

  it('skips an event whose decision is gone and still pages past it', async function () {
    // positions 700 and 1400 are judged dense events whose decisions were deleted
    const page = await pageJudgedEvents(store.connection, 'dense', 693n, 2, endSeq, judgedEventColumns);
    assert.deepEqual(
      page.judged.map(({ event }) => event.seq),
      [707n],
    );
    assert.deepEqual([page.hasMore, page.lastSeq], [true, 707n]);
    const empty = await pageJudgedEvents(store.connection, 'dense', 1399n, 1, endSeq, judgedEventColumns);
    assert.deepEqual([empty.judged, empty.hasMore, empty.lastSeq], [[], true, 1400n]);
  });

  it('reads only the columns asked for, with the same events and decisions', async function () {
    const columns = ['seq', 'id', 'type', 'time', 'tool_call_id', 'evidence_level'] as const;
    for (const after of [-1n, 65_000n])
      for (const run of ['dense', 'sparse']) {
        const narrow = await pageJudgedEvents(store.connection, run, after, 100, endSeq, columns);
        const full = await pageJudgedEvents(store.connection, run, after, 100, endSeq, judgedEventColumns);
        assert.deepEqual(narrow, {
          ...full,
          judged: full.judged.map(({ event, decision }) => ({
            event: Object.fromEntries(columns.map((column) => [column, event[column]])),
            decision,
          })),
        });
      }
  });
});
