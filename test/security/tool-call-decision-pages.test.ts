/**
 * The pages of a run's risks and responses across the gate's decisions on its tool calls and the
 * policy's on its events (tool-call-risks.ts), on a real store: every page size lists each item
 * once, in order (the calls' by decided time, then hash; then the events'), each page full but the
 * last; the run's own decisions and calls only; a hostile cursor key is refused or lands past the
 * calls; a decision stored before this process is found; and the signals' count of them.
 */
import assert from 'node:assert/strict';
import { execute, sql } from '../../src/store/sql.js';
import { judgedEventColumns } from '../../src/security/judged-events.sql.js';
import {
  countToolCallDecisions,
  insertToolCallDecision,
  mayHoldToolCallDecisions,
} from '../../src/security/tool-call-decisions.sql.js';
import {
  pageToolCallsThenEvents,
  riskPosition,
  toolCallOutcome,
} from '../../src/security/tool-call-risks.js';
import type { HookDecision } from '../../src/provenance/hooks/hook-decision.js';
import { readSecurity } from '../../src/security/signals/security-signals.sql.js';
import { openTestStore, type TestStore } from '../support/store.js';

const hash = (digit: string): string => `sha256:${digit.repeat(64)}`;
const endSeq = 100n;

function decided(decision: string, rule: string, advisory: HookDecision['advisory'] = null): HookDecision {
  return {
    decision,
    rule_id: rule,
    reason: `${rule} said ${decision}`,
    severity: decision === 'allow' ? 'low' : 'high',
    advisory,
    policy: 'built-in',
    answered: decision === 'allow' ? 'allow' : 'deny',
  };
}

/**
 * Run `r`: five decisions on its tool calls, stored out of decided order (two at the same ns, the
 * first decided of a rule not its least hash), a plain allow (not kept), and judged events at seq
 * 0, 2, 4; run `other`: a decision at a time between them, events at 1, 3, 5 and a tool call with
 * the same hash as one of r's; run `calls-only`: three decisions and no event; run `old`: a
 * decision written straight into the store, as by an earlier daemon.
 */
async function fill(store: TestStore): Promise<void> {
  const { connection } = store;
  await execute(
    connection,
    sql`INSERT INTO policy_decisions (event_id, event_hash, decision, rule_id, severity, reason, policy,
          decided_ns, run_id, seq)
        VALUES (${hash('9')}, ${hash('9')}, 'deny', 'secret_path', 'high', 'old', 'built-in', 5, 'old', -1)`,
  );
  const calls: [string, string, string, HookDecision, bigint, string][] = [
    ['r', 'toolu_c', hash('c'), decided('deny', 'secret_path'), 300n, 'denied'],
    ['r', 'toolu_b', hash('b'), decided('deny', 'secret_path'), 100n, 'denied'],
    ['r', 'toolu_a', hash('a'), decided('kill', 'exfil'), 100n, 'denied'],
    [
      'r',
      'toolu_d',
      hash('d'),
      decided('allow', 'default_allow', { rule_id: 'watch', decision: 'deny', reason: 'watched' }),
      50n,
      'asserted',
    ],
    ['r', 'toolu_e', hash('e'), decided('deny', 'secret_path'), 20n, 'denied'],
    ['r', 'toolu_ok', hash('0'), decided('allow', 'default_allow'), 60n, 'asserted'],
    ['other', 'toolu_x', hash('1'), decided('deny', 'secret_path'), 200n, 'denied'],
    ['calls-only', 'toolu_p', hash('5'), decided('deny', 'secret_path'), 1n, 'denied'],
    ['calls-only', 'toolu_q', hash('6'), decided('deny', 'secret_path'), 2n, 'denied'],
    ['calls-only', 'toolu_s', hash('7'), decided('deny', 'secret_path'), 3n, 'denied'],
  ];
  for (const [run, id, object, decision, ns, status] of calls) {
    await execute(
      connection,
      sql`INSERT INTO tool_calls VALUES (${run}, ${id}, ${status}, ${JSON.stringify({ command: 'Bash' })},
          ${object}, ${ns}, NULL)`,
    );
    await insertToolCallDecision(connection, {
      run_id: run,
      tool_call_id: id,
      object_hash: object,
      decision,
      decided_ns: ns,
    });
  }
  // the same object hash in another run: a page of r names r's call only
  await execute(
    connection,
    sql`INSERT INTO tool_calls VALUES ('other', 'toolu_other_c', 'denied', '{"command":"Read"}', ${hash('c')}, 1, NULL)`,
  );
  await execute(
    connection,
    sql`INSERT INTO events (id, seq, run_id, type, source, time, time_ns, ingested_ns, corr_method,
          evidence_level, spool_state, attrs, hash, judged)
        SELECT 'ev' || range, range, CASE WHEN range % 2 = 0 THEN 'r' ELSE 'other' END, 0, 0,
          '2026-01-01T00:00:00Z', range, 0, 0, 0, 0, '{}', 'sha256:ev' || range, range BETWEEN 0 AND 5
        FROM range(7)`,
  );
  await execute(
    connection,
    sql`INSERT INTO policy_decisions (event_id, event_hash, decision, rule_id, severity, reason, policy,
          decided_ns, run_id, seq)
        SELECT id, hash, 'deny', 'secret_path', 'high', 'event', 'built-in', 1000 + seq, run_id, seq
        FROM events WHERE judged ORDER BY seq`,
  );
}

/** What each run's pages list, in order: tool calls by decided time then hash, then events by seq. */
const expected = [
  'call toolu_e deny',
  'call toolu_d allow',
  'call toolu_a kill',
  'call toolu_b deny',
  'call toolu_c deny',
  'event ev0',
  'event ev2',
  'event ev4',
];
const expectedOf: Record<string, string[]> = {
  r: expected,
  'calls-only': ['call toolu_p deny', 'call toolu_q deny', 'call toolu_s deny'],
};

async function pageOf(
  store: TestStore,
  run: string,
  key: string | null,
  limit: number,
): Promise<{ items: string[]; next: string | null }> {
  return pageToolCallsThenEvents(
    store.connection,
    { run, limit },
    riskPosition(key),
    endSeq,
    judgedEventColumns,
    (row) => `call ${row.tool_call_id} ${row.decision}`,
    ({ event }) => `event ${event.id}`,
  );
}

describe('tool-call decision pages', function () {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
    await fill(store);
  });
  afterEach(() => store.close());

  it('lists each decision of the run once, in order, each page full but the last, at every page size', async function () {
    for (const [run, items] of Object.entries(expectedOf))
      for (let limit = 1; limit <= items.length + 1; limit++) {
        const pages: string[][] = [];
        let key: string | null = null;
        do {
          const page = await pageOf(store, run, key, limit);
          pages.push(page.items);
          key = page.next;
        } while (key !== null && pages.length <= items.length);
        assert.deepEqual(pages.flat(), items, `${run}, limit ${limit}`);
        const sizes = pages.map((page) => page.length);
        const full = items.map((_, i) => i).filter((i) => i % limit === 0);
        assert.deepEqual(
          sizes,
          full.map((i) => Math.min(limit, items.length - i)),
          `${run}, limit ${limit}`,
        );
      }
  });

  it('names the call of its own run', async function () {
    const rows: string[] = [];
    await pageToolCallsThenEvents(
      store.connection,
      { run: 'r', limit: 100 },
      riskPosition(null),
      endSeq,
      judgedEventColumns,
      (row) => rows.push(`${row.tool_call_id} ${row.tool_name}`),
      () => null,
    );
    assert.deepEqual(rows, ['toolu_e Bash', 'toolu_d Bash', 'toolu_a Bash', 'toolu_b Bash', 'toolu_c Bash']);
  });

  it('refuses a cursor key this daemon never issues, and starts a key past every call at the events', async function () {
    for (const key of [
      'tc:',
      'tc:1',
      'tc:x:' + hash('a'),
      'tc:1:' + hash('A'),
      'tc:1:sha256:ab',
      '1e3',
      ' 5',
      'tc:-1:' + hash('a'),
    ])
      assert.throws(() => riskPosition(key), { code: 'invalid_cursor' }, key);
    const far = await pageOf(store, 'r', `tc:99999999999999999999:${hash('f')}`, 100);
    assert.deepEqual(far, { items: expected.slice(5), next: null });
    // a key between two calls of the same time: after it, only those after it
    const between = await pageOf(store, 'r', `tc:100:${hash('a')}`, 100);
    assert.deepEqual(between.items, expected.slice(3));
    // an event's position stays a cursor of its own: past every call
    assert.deepEqual((await pageOf(store, 'r', '3', 100)).items, ['event ev4']);
    assert.deepEqual(await pageOf(store, 'r', '99999999999999999999', 100), { items: [], next: null });
  });

  it('finds a run whose decision was stored before this process, and none in a run without', async function () {
    assert.equal(await mayHoldToolCallDecisions(store.connection, 'old'), true);
    assert.equal(await mayHoldToolCallDecisions(store.connection, 'r'), true);
    assert.equal(await mayHoldToolCallDecisions(store.connection, 'none'), false);
    assert.deepEqual((await pageOf(store, 'old', null, 10)).items, ['call null deny']);
  });

  it('counts the run’s decisions by severity, decision and rule, each with its first decided', async function () {
    const counts = (await countToolCallDecisions(store.connection, 'r')).map(
      ({ severity, decision, rule_id, decisions, first_id }) => [
        severity,
        decision,
        rule_id,
        decisions,
        first_id,
      ],
    );
    assert.deepEqual(counts, [
      ['high', 'deny', 'secret_path', 3n, hash('e')],
      ['high', 'kill', 'exfil', 1n, hash('a')],
      ['low', 'allow', 'default_allow', 1n, hash('d')],
    ]);
  });

  it('ranks the run’s risk rules in its signals with its tool calls’ decisions, the most frequent first', async function () {
    const { risks } = await readSecurity(store.connection, 'r', { firstNs: null, lastNs: null, seconds: 0 });
    assert.equal(risks.total, 5);
    assert.deepEqual(
      risks.by_rule.map(({ rule_id, risks: n, first_event_id }) => [rule_id, n, first_event_id]),
      [
        ['secret_path', 3, hash('e')],
        ['default_allow', 1, hash('d')],
        ['exfil', 1, hash('a')],
      ],
    );
  });

  it('says a denied call was refused by the gate though its tool_calls row is gone, as its decision says', async function () {
    const outcomes: string[] = [];
    for (const run of ['old', 'r'])
      await pageToolCallsThenEvents(
        store.connection,
        { run, limit: 100 },
        riskPosition(null),
        endSeq,
        judgedEventColumns,
        (row) => outcomes.push(`${row.tool_call_id} ${toolCallOutcome(row).status}`),
        () => null,
      );
    assert.deepEqual(outcomes, [
      'null enforced',
      'toolu_e enforced',
      'toolu_d not_required',
      'toolu_a enforced',
      'toolu_b enforced',
      'toolu_c enforced',
    ]);
  });
});
