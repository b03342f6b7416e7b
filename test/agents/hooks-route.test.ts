/**
 * POST /v1/hooks/{agent} on a real daemon: a Claude session's hook events posted in order become a
 * run whose tool calls carry the agent's ids, input and result objects and the gate's sealed
 * decision; verify answers ok, and failed once a stored hook object is edited. Each agent's deny
 * shape, and bad input of every kind.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { postHeadOnly, request } from '../support/http.js';
import { capturedPayloads } from '../support/agents/captured-payloads.js';
import { listEvents } from '../support/sensor-events.js';
import { formatRfc3339Nanos } from '../../src/shared/rfc3339.js';

const captured = capturedPayloads();

const token = 'hooks-test-token';
const auth = { authorization: `Bearer ${token}` };

const post = (url: string, agent: string, body: unknown, query = ''): ReturnType<typeof request> =>
  request(url, `/v1/hooks/${agent}${query}`, {
    method: 'POST',
    headers: auth,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The captured Claude session, with one more PreToolUse the default policy denies. */
function claudeSession(): Record<string, unknown>[] {
  const events = captured.filter(({ agent }) => agent === 'claude').map(({ payload }) => payload);
  const pre = events.find((payload) => payload['hook_event_name'] === 'PreToolUse')!;
  const denied = {
    ...pre,
    tool_name: 'Bash',
    tool_input: { command: 'cat /etc/shadow > stolen.txt', description: 'steal' },
    tool_use_id: 'toolu_denied_1',
  };
  const stop = events.findIndex((payload) => payload['hook_event_name'] === 'Stop');
  return [...events.slice(0, stop), denied, ...events.slice(stop)];
}

describe('POST /v1/hooks/{agent}', function () {
  const fixture = useDaemonFixture();
  // tests that read only their own answers and runs share one daemon; those that read the whole
  // store after a stop, or its counters, keep their own
  const shared = useSharedDaemon({ authToken: token });

  it("stores a Claude session as a run: the agent's tool-call ids, input and result objects, the denied call's sealed decision; verify ok, and failed after an edit", async function () {
    let daemon = await fixture.start({ authToken: token });
    const session = claudeSession();
    const runId = String(session[0]!['session_id']);
    const answers: Record<string, unknown>[] = [];
    for (const payload of session) {
      const answer = await post(daemon.url, 'claude', payload);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.headers.get('provenance-schema'), 'provenance.hook/v1');
      answers.push(answer.body);
    }
    const deniedAt = session.findIndex((payload) => payload['tool_use_id'] === 'toolu_denied_1');
    answers.forEach((answer, i) =>
      i === deniedAt
        ? assert.deepEqual(answer, {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: (
                answer as { hookSpecificOutput: { permissionDecisionReason: string } }
              ).hookSpecificOutput.permissionDecisionReason,
            },
          })
        : assert.deepEqual(answer, {}, String(session[i]!['hook_event_name'])),
    );
    const timeline = await request(daemon.url, `/v1/timeline?run=${runId}`, { headers: auth });
    assert.equal(timeline.status, 200);
    assert.match(JSON.stringify(timeline.body), /tool call toolu_denied_1: Bash \(denied\)/);
    const verified = await request(daemon.url, `/v1/graph/verify?run=${runId}`, { headers: auth });
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
    // the context answer lists every object of the chain: the session's hook events and contents too
    const entries = await request(daemon.url, `/v1/context/entries?run=${runId}&limit=1000`, {
      headers: auth,
    });
    const listed = (entries.body['entries'] as { kind: string; summary: string }[]).map(
      ({ kind, summary }) => `${kind}: ${summary}`,
    );
    assert.ok(listed.includes('hook_event: claude hook SessionStart'), listed.join('\n'));
    assert.ok(listed.includes('hook_event: claude hook UserPromptSubmit'), listed.join('\n'));
    assert.ok(
      listed.some((line) => /^hook_content: tool_input of toolu_denied_1 \(\d+ bytes\)$/.test(line)),
      listed.join('\n'),
    );
    const prompts = await request(daemon.url, `/v1/context/entries?run=${runId}&kind=hook_event`, {
      headers: auth,
    });
    assert.equal(prompts.status, 200, JSON.stringify(prompts.body));
    assert.ok(
      (prompts.body['entries'] as { kind: string }[]).every(({ kind }) => kind === 'hook_event'),
      JSON.stringify(prompts.body),
    );
    await daemon.stop();

    const db = join(fixture.dataDir, 'provd.duckdb');
    const ids = session
      .filter((payload) => payload['hook_event_name'] === 'PreToolUse')
      .map((payload) => String(payload['tool_use_id']));
    await withDatabase(db, async (connection) => {
      const calls = await queryRows(
        connection,
        `SELECT tool_call_id, status, record::VARCHAR AS record FROM tool_calls WHERE run_id = '${runId}' ORDER BY started_ns`,
      );
      assert.deepEqual(
        calls.map((row) => row['tool_call_id']),
        ids,
      );
      assert.deepEqual(
        calls.map((row) => row['status']),
        ids.map((id) => (id === 'toolu_denied_1' ? 'denied' : 'completed')),
      );
      const record = JSON.parse(String(calls[0]!['record'])) as Record<string, unknown>;
      assert.equal(record['executed'], false);
      assert.equal(record['exit_code'], null, 'no exit status provd never saw');
      assert.equal(record['command'], 'Bash');
      const objects = await queryRows(
        connection,
        `SELECT kind, body FROM objects WHERE run_id = '${runId}' ORDER BY chain_index NULLS LAST, hash`,
      );
      const bodies = objects.map(
        (row) =>
          JSON.parse(String(row['body'])) as {
            kind: string;
            parents: string[];
            payload: Record<string, unknown>;
          },
      );
      const toolCalls = bodies.filter((body) => body.kind === 'tool_call');
      assert.deepEqual(
        toolCalls.map((body) => body.payload['tool_call_id']),
        ids,
      );
      const denied = toolCalls.find((body) => body.payload['tool_call_id'] === 'toolu_denied_1')!;
      const decision = denied.payload['decision'] as Record<string, unknown>;
      assert.equal(decision['answered'], 'deny');
      assert.notEqual(decision['decision'], 'allow');
      const streams = bodies
        .filter((body) => body.kind === 'hook_content')
        .map((body) => `${String(body.payload['tool_call_id'])}:${String(body.payload['stream'])}`);
      for (const id of ids) {
        assert.ok(streams.includes(`${id}:tool_input`), id);
        assert.equal(streams.includes(`${id}:tool_result`), id !== 'toolu_denied_1', id);
      }
      const prompt = bodies.find(
        (body) => body.kind === 'hook_event' && body.payload['event'] === 'user_prompt',
      )!;
      assert.match(String(prompt.payload['prompt_hash']), /^sha256:/);
      assert.ok(
        !JSON.stringify(prompt).includes('make a greeting'),
        'the prompt text is not stored by default',
      );
      const [checkpoints] = await queryRows(
        connection,
        `SELECT count(*)::INTEGER AS n FROM checkpoints WHERE run_id = '${runId}'`,
      );
      assert.ok(Number(checkpoints!['n']) >= 1, 'SessionEnd sealed the run');
      // the attacker's edit: the stored input of the first tool call
      await connection.run(
        `UPDATE artifacts SET content = 'e30='::BLOB WHERE hash = (SELECT json_extract_string(body, '$.payload.content_hash')
           FROM objects WHERE run_id = '${runId}' AND kind = 'hook_content'
             AND json_extract_string(body, '$.payload.stream') = 'tool_input' LIMIT 1)`,
      );
    });
    daemon = await fixture.start({ authToken: token });
    const tampered = await request(daemon.url, `/v1/graph/verify?run=${runId}`, { headers: auth });
    assert.equal(tampered.body['status'], 'failed');
    assert.match(JSON.stringify(tampered.body['issues']), /artifact_content_mismatch/);
  });

  it("answers each agent's deny in its own shape", async function () {
    const { daemon } = shared;
    const pre = (agent: string): Record<string, unknown> =>
      captured.find((one) => one.agent === agent && /^(PreToolUse|BeforeTool)$/.test(one.event))!.payload;
    const codex = await post(daemon.url, 'codex', {
      ...pre('codex'),
      tool_input: { command: 'cat /etc/shadow' },
    });
    assert.equal(codex.status, 200);
    assert.equal((codex.body['hookSpecificOutput'] as Record<string, unknown>)['permissionDecision'], 'deny');
    const gemini = await post(daemon.url, 'gemini', {
      ...pre('gemini'),
      tool_input: { command: 'cat /etc/shadow > stolen.txt' },
    });
    assert.equal(gemini.status, 200);
    assert.equal(gemini.body['decision'], 'deny');
    assert.match(String(gemini.body['reason']), /.+/);
  });

  it('numbers Gemini calls of one tool and input, and stores a PostToolUse whose PreToolUse it never saw', async function () {
    const daemon = await fixture.start({ authToken: token });
    const before = captured.find((one) => one.agent === 'gemini' && one.event === 'BeforeTool')!.payload;
    const after = captured.find((one) => one.agent === 'gemini' && one.event === 'AfterTool')!.payload;
    for (const payload of [before, before, after, after])
      assert.equal((await post(daemon.url, 'gemini', payload, '?run=g1')).status, 200);
    const claudePost = captured.find((one) => one.agent === 'claude' && one.event === 'PostToolUse')!.payload;
    assert.equal(
      (await post(daemon.url, 'claude', { ...claudePost, tool_use_id: 'toolu_unseen' }, '?run=c1')).status,
      200,
    );
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const rows = await queryRows(
        connection,
        `SELECT t.run_id, t.tool_call_id, t.status, json_extract(o.body, '$.payload.pre_tool_use_seen')::VARCHAR AS seen
         FROM tool_calls t JOIN objects o ON o.hash = t.object_hash ORDER BY t.run_id, t.tool_call_id`,
      );
      assert.equal(rows.length, 3);
      assert.deepEqual(
        rows.map((row) => [row['run_id'], row['status'], row['seen']]),
        [
          ['c1', 'completed', 'false'],
          ['g1', 'completed', 'true'],
          ['g1', 'completed', 'true'],
        ],
      );
      assert.match(String(rows[1]!['tool_call_id']), /^g_[0-9a-f]{24}-1$/);
      assert.match(String(rows[2]!['tool_call_id']), /^g_[0-9a-f]{24}-2$/);
    });
  });

  it('stores 50 tool calls whose PreToolUse and PostToolUse come at once (batched): each once, completed with its result; a reused id fails alone; verify ok', async function () {
    const daemon = await fixture.start({ authToken: token });
    const pre = captured.find(
      ({ agent, payload }) => agent === 'claude' && payload['hook_event_name'] === 'PreToolUse',
    )!.payload;
    const call = (i: number, event: string): Record<string, unknown> => ({
      ...pre,
      session_id: 'batched',
      hook_event_name: event,
      tool_name: 'Bash',
      tool_input: { command: `echo ${i}` },
      tool_use_id: `toolu_batched_${i}`,
      ...(event === 'PostToolUse' ? { tool_response: { stdout: `${i}\n` }, duration_ms: i } : {}),
    });
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        assert.equal((await post(daemon.url, 'claude', call(i, 'PreToolUse'))).status, 200);
        // a hostile PreToolUse reusing a call's id, among the others: it alone fails to store
        if (i === 25) assert.equal((await post(daemon.url, 'claude', call(0, 'PreToolUse'))).status, 200);
        assert.equal((await post(daemon.url, 'claude', call(i, 'PostToolUse'))).status, 200);
      }),
    );
    const verified = await request(daemon.url, '/v1/graph/verify?run=batched', { headers: auth });
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
    // the reused id's write failed after its answer, counted; no other write failed with it
    await eventually(
      'the reused id counted as the one hook that failed to store',
      async () =>
        (await request(daemon.url, '/v1/health')).body['checks'] as { hooks: { store_failed: number } },
      (checks) => checks.hooks.store_failed >= 1,
    );
    const health = await request(daemon.url, '/v1/health');
    assert.equal((health.body['checks'] as { hooks: { store_failed: number } }).hooks.store_failed, 1);
    // and it is the run's coverage gap, with its counter, where producer health reports them
    const producer = await eventually(
      "the failed write recorded as the run's gap",
      async () =>
        (await request(daemon.url, '/v1/telemetry/producer-health?run=batched', { headers: auth })).body,
      (body) =>
        body['coverage_gaps'] !== undefined && 'hook_store_failed' in (body['coverage_gaps'] as object),
    );
    assert.deepEqual(
      [producer['hooks'], (producer['coverage_gaps'] as Record<string, unknown>)['hook_store_failed']],
      [
        { socket: {}, spool: {}, store: { failed_after_answer: 1 } },
        { gaps: 1, lost_events: 1 },
      ],
    );
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const calls = await queryRows(
        connection,
        `SELECT t.tool_call_id, t.status, count(o.hash) AS objects,
           bool_and(o.kind <> 'tool_call' OR json_extract(o.body, '$.payload.pre_tool_use_seen')::BOOLEAN) AS pre_seen
         FROM tool_calls t
         LEFT JOIN objects o ON json_extract_string(o.body, '$.payload.tool_call_id') = t.tool_call_id
         WHERE t.run_id = 'batched' GROUP BY ALL ORDER BY t.tool_call_id`,
      );
      assert.equal(calls.length, 50);
      const [gap, ...more] = await queryRows(
        connection,
        `SELECT run_id, source, lost_events, start_ns = end_ns AS one_instant, detail::VARCHAR AS detail
         FROM coverage_gaps WHERE kind = 'hook_store_failed'`,
      );
      assert.deepEqual(more, []);
      assert.deepEqual(
        [gap!['run_id'], gap!['source'], gap!['lost_events'], gap!['one_instant']],
        ['batched', 'hook_store', 1n, true],
      );
      const detail = JSON.parse(String(gap!['detail'])) as Record<string, unknown>;
      assert.deepEqual(detail['tool_call_ids'], ['toolu_batched_0']);
      assert.match(String(detail['last_error']), /./);
      for (const row of calls)
        // its tool_call object, its input and its result, once each
        assert.deepEqual(
          [row['status'], row['objects'], row['pre_seen']],
          ['completed', 3n, true],
          String(row['tool_call_id']),
        );
    });
  });

  it('ties an exec committed before its PreToolUse was stored to the call, when the hook is stored', async function () {
    const { daemon } = shared;
    const run = 'tie-at-hook';
    const bound = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: run, tool_call_id: 'agent', cgroup_id: '424242' }),
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    // the call's shell, timed after the PreToolUse comes and committed before it (a commit ties
    // only to calls stored by then: here none, so only the hook's write can tie it)
    const shell = {
      type: 'execve',
      time: formatRfc3339Nanos((BigInt(Date.now()) + 60_000n) * 1_000_000n),
      pid: 5001,
      tgid: 5001,
      ppid: 5000,
      comm: 'bash',
      cgroup_id: '424242',
      argv: ['/bin/bash', '-c', 'echo tied at the hook'],
    };
    const ingested = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-ndjson' },
      body: `${JSON.stringify(shell)}\n`,
    });
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));
    const pre = captured.find(
      ({ agent, payload }) => agent === 'claude' && payload['hook_event_name'] === 'PreToolUse',
    )!.payload;
    const call = { ...pre, session_id: run, tool_name: 'Bash', tool_use_id: 'toolu_at_hook' };
    assert.equal(
      (await post(daemon.url, 'claude', { ...call, tool_input: { command: 'echo tied at the hook' } }))
        .status,
      200,
    );
    // a hook answered after its write: the PreToolUse's write and its tie came before it
    const prompt = { ...pre, session_id: run, hook_event_name: 'UserPromptSubmit', prompt: 'next' };
    assert.equal((await post(daemon.url, 'claude', prompt)).status, 200);
    const [event] = await listEvents(daemon, run, auth);
    assert.deepEqual([event?.tool_call_id, event?.correlation.method], ['toolu_at_hook', 'hook_exec_match']);
  });

  it('refuses a payload holding an unpaired surrogate, 400 naming the field, and stores nothing of it', async function () {
    const daemon = await fixture.start({ authToken: token });
    const pre = captured.find((one) => one.agent === 'claude' && one.event === 'PreToolUse')!.payload;
    const call = { ...pre, session_id: 'surrogates', tool_name: 'Bash', tool_use_id: 'toolu_sur' };
    // as the agent's JSON.stringify escapes a lone surrogate: U+FFFD in the store (two ids as one),
    // and in a stored input an escape DuckDB's JSON refuses (the run's tie passes failed on it)
    const cases: [string, RegExp][] = [
      [JSON.stringify({ ...call, session_id: 'surrogates\ud800' }), /session_id holds an unpaired/],
      [JSON.stringify({ ...call, tool_use_id: 'toolu_\udc00' }), /tool_use_id holds an unpaired/],
      [JSON.stringify({ ...call, tool_input: { command: ['echo \ud800'] } }), /tool_input\.command\[0\]/],
      [
        JSON.stringify({ ...call, hook_event_name: 'UserPromptSubmit', prompt: 'hi \udbff' }),
        /prompt holds an unpaired/,
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await post(daemon.url, 'claude', body);
      assert.equal(answer.status, 400, body);
      assert.match(String((answer.body['error'] as Record<string, unknown>)['message']), message);
    }
    const surrogatesRun = await post(
      daemon.url,
      'claude',
      JSON.stringify({ ...pre, session_id: 'surrogates' }),
      `?run=${encodeURIComponent('surrogates\ud83d\ude00')}`,
    );
    assert.equal(surrogatesRun.status, 200, 'a surrogate pair is text: accepted');
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      const runs = await queryRows(connection, `SELECT run_id FROM runs`);
      assert.deepEqual(runs, [{ run_id: 'surrogates\ud83d\ude00' }]);
    });
  });

  it('refuses bad input: unknown agent 404, a payload not the agent’s 400 naming the field, oversized 413, no token 401', async function () {
    const { daemon } = shared;
    const pre = captured.find((one) => one.agent === 'claude' && one.event === 'PreToolUse')!.payload;
    const unknown = await post(daemon.url, 'cursor', pre);
    assert.equal(unknown.status, 404);
    const cases: [unknown, RegExp][] = [
      [{ ...pre, session_id: undefined }, /session_id/],
      [{ ...pre, tool_use_id: 5 }, /tool_use_id/],
      [{ ...pre, tool_input: null }, /tool_input/],
      ['[1,2]', /body/],
      ['{"session_id":', /body/],
    ];
    for (const [body, message] of cases) {
      const answer = await post(daemon.url, 'claude', body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      assert.match(String((answer.body['error'] as Record<string, unknown>)['message']), message);
    }
    // refused from its Content-Length, before the client sends any of it (so no EPIPE race)
    const big = await postHeadOnly(daemon.url, '/v1/hooks/claude', 2 * 1024 * 1024, 'application/json', {
      Authorization: `Bearer ${token}`,
    });
    assert.equal(big.status, 413);
    const anonymous = await request(daemon.url, '/v1/hooks/claude', {
      method: 'POST',
      body: JSON.stringify(pre),
    });
    assert.equal(anonymous.status, 401);
  });
});
