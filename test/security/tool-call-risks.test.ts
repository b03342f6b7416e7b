/**
 * The gate's decision on an agent's PreToolUse where a user asks what the policy stopped: a real
 * daemon answers Claude's captured PreToolUse for `cat /etc/shadow > stolen.txt` with a deny, and
 * GET /v1/security/risks and /responses, `provd risks`, the security signals and the metrics list it, tied to the
 * run and the tool call (its id, tool name, rule, reason), and explain leads from it to the call;
 * an allowed call is no risk. verify
 * answers ok, and failed once the stored decision is rewritten or deleted, or one is added.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { eventually } from '../support/eventually.js';
import { pageItems, request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';
import { capturedPayloads } from '../support/agents/captured-payloads.js';

const token = 'tool-call-risks-token';
const auth = { authorization: `Bearer ${token}` };
const runId = 'run-gate';

interface Risk {
  risk_id: string;
  rule_id: string;
  decision: string;
  reason: string;
  tool_call_id: string | null;
  tool_call?: { tool_call_id: string | null; tool_name: string | null; object_hash: string };
  evidence_level: string;
  evidence: unknown[];
  response: { status: string; actor: string; outcome: string };
}

/** Claude's captured Bash PreToolUse, for `command`, as tool call `id` of the run. */
function preToolUse(id: string, command: string): Record<string, unknown> {
  const captured = capturedPayloads().find(
    ({ agent, payload }) =>
      agent === 'claude' && payload['hook_event_name'] === 'PreToolUse' && payload['tool_name'] === 'Bash',
  )!.payload;
  return { ...captured, session_id: runId, tool_use_id: id, tool_input: { command, description: id } };
}

async function postHook(daemon: RunningDaemon, payload: Record<string, unknown>): Promise<unknown> {
  const answer = await request(daemon.url, '/v1/hooks/claude', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(payload),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const risksOf = (daemon: RunningDaemon, limit = 100): Promise<Risk[]> =>
  pageItems<Risk>(daemon.url, `/v1/security/risks?run=${runId}`, 'risks', limit, auth);

async function verifyStatus(daemon: RunningDaemon): Promise<Record<string, unknown>> {
  const answer = await request(daemon.url, `/v1/graph/verify?run=${runId}`, { headers: auth });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

describe('the gate decisions on tool calls, among the policy decisions', function () {
  const fixture = useDaemonFixture();

  it('lists a denied PreToolUse as a risk of its run (risks, provd risks, signals, metrics), not an allowed one; verify ok, and failed once the decision is rewritten, gone or added', async function () {
    let daemon = await fixture.start({ authToken: token });
    assert.deepEqual(await postHook(daemon, preToolUse('toolu_ls', 'ls -la')), {});
    const denied = (await postHook(daemon, preToolUse('toolu_steal', 'cat /etc/shadow > stolen.txt'))) as {
      hookSpecificOutput: { permissionDecision: string };
    };
    assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny');
    // and a risk on one of the run's events, which comes after the tool calls' in the run's list
    const bound = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: runId, tool_call_id: 'tc-bound', cgroup_id: '777' }),
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    const ingested = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers: auth,
      body: nativeLine({ event_type: 'file_open', path: '/etc/shadow', timestamp: new Date().toISOString() }),
    });
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));

    // a PreToolUse is stored behind its answer
    const risks = await eventually(
      'the denied call and the event among the risks',
      () => risksOf(daemon),
      (found) => found.length === 2,
    );
    const [call, event] = risks;
    assert.equal(call!.tool_call_id, 'toolu_steal');
    assert.deepEqual(
      { ...call!.tool_call, object_hash: typeof call!.tool_call?.object_hash },
      { tool_call_id: 'toolu_steal', tool_name: 'Bash', object_hash: 'string' },
    );
    assert.equal(call!.risk_id, `risk_${call!.tool_call!.object_hash}`);
    assert.equal(call!.rule_id, 'secret_path');
    assert.notEqual(call!.decision, 'allow');
    assert.match(call!.reason, /\/etc\/shadow/);
    assert.equal(call!.evidence_level, 'context_asserted');
    assert.deepEqual(call!.evidence, []);
    assert.deepEqual(
      { status: call!.response.status, actor: call!.response.actor },
      { status: 'enforced', actor: 'provd' },
    );
    assert.ok(!risks.some((risk) => risk.tool_call_id === 'toolu_ls'), 'the allowed call is no risk');
    assert.equal(event!.rule_id, 'secret_path');
    assert.equal(event!.evidence.length, 1);
    // one risk a page: the tool call's page leads to the event's
    assert.deepEqual(
      (await risksOf(daemon, 1)).map((risk) => risk.risk_id),
      risks.map((risk) => risk.risk_id),
    );

    // its response: provd's gate refused the call, aimed at the call; then the event's
    const responses = await pageItems<{ risk_id: string; status: string; actor: string; target: unknown }>(
      daemon.url,
      `/v1/security/responses?run=${runId}`,
      'responses',
      1,
      auth,
    );
    assert.deepEqual(
      responses.map(({ risk_id }) => risk_id),
      risks.map((risk) => risk.risk_id),
    );
    assert.deepEqual(
      { status: responses[0]!.status, actor: responses[0]!.actor, target: responses[0]!.target },
      { status: 'enforced', actor: 'provd', target: { kind: 'tool_call', id: 'toolu_steal' } },
    );

    // explain --risk leads from the decision to the tool call it judged, and on to the run
    const explained = await request(
      daemon.url,
      `/v1/graph/explain?risk=${encodeURIComponent(call!.risk_id)}`,
      {
        headers: auth,
      },
    );
    assert.equal(explained.status, 200, JSON.stringify(explained.body));
    const path = explained.body['path'] as { node: { kind: string; id: string } }[];
    assert.deepEqual(
      [
        (explained.body['node'] as { kind: string }).kind,
        path[0]!.node.kind,
        path[0]!.node.id,
        path.at(-1)!.node.kind,
      ],
      ['risk', 'tool_call', 'toolu_steal', 'run'],
    );

    const cli = await runCli(['risks', runId], {
      env: { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: token, NO_COLOR: '1' },
    });
    assert.equal(cli.code, 0, cli.stderr);
    const line = cli.stdout.split('\n').find((text) => text.includes('toolu_steal'));
    assert.ok(line !== undefined, cli.stdout);
    assert.match(line, /secret_path/);
    assert.match(line, /Bash/);
    assert.match(line, /context_asserted/);
    assert.ok(!cli.stdout.includes('toolu_ls'), cli.stdout);

    const signals = await request(daemon.url, `/v1/signals?run=${runId}`, { headers: auth });
    assert.equal(signals.status, 200, JSON.stringify(signals.body));
    const security = (signals.body['security'] as { risks: Record<string, unknown> }).risks;
    assert.equal(security['total'], 2, JSON.stringify(security));
    assert.deepEqual(security['by_rule'], [
      {
        rule_id: 'secret_path',
        risks: 2,
        first_event_id:
          event!.evidence[0] === undefined ? '' : (event!.evidence[0] as { event_id: string }).event_id,
      },
    ]);

    const metrics = await fetch(`${daemon.url}/metrics`, { headers: auth });
    const text = await metrics.text();
    assert.match(
      text,
      new RegExp(`provd_risks_total\\{decision="${call!.decision}",rule_id="secret_path"\\} [12]`),
    );
    const counted = [...text.matchAll(/^provd_risks_total\{[^}]*rule_id="secret_path"\} (\d+)$/gm)];
    assert.equal(
      counted.reduce((sum, found) => sum + Number(found[1]), 0),
      2,
      text,
    );

    assert.equal((await verifyStatus(daemon))['status'], 'ok');
    const listed = (await risksOf(daemon)).map((risk) => risk.risk_id);
    await daemon.stop();
    // a daemon started again on the store lists the same (the runs holding tool-call decisions are read back)
    daemon = await fixture.start({ authToken: token });
    assert.deepEqual(
      (await risksOf(daemon)).map((risk) => risk.risk_id),
      listed,
    );
    await daemon.stop();

    // the decision rewritten to a plain allow, then deleted: each fails verify
    const db = join(fixture.dataDir, 'provd.duckdb');
    const tampered = async (statement: string): Promise<Record<string, unknown>> => {
      await withDatabase(db, async (connection) => void (await connection.run(statement)));
      daemon = await fixture.start({ authToken: token });
      const verified = await verifyStatus(daemon);
      await daemon.stop();
      return verified;
    };
    const rewritten = await tampered(
      `UPDATE policy_decisions SET decision = 'allow', rule_id = 'default_allow' WHERE seq = -1`,
    );
    assert.equal(rewritten['status'], 'failed');
    assert.deepEqual(
      (rewritten['issues'] as { kind: string }[]).map(({ kind }) => kind),
      ['tool_call_decision_mismatch'],
    );
    const deleted = await tampered(`DELETE FROM policy_decisions WHERE seq = -1`);
    assert.equal(deleted['status'], 'failed');
    assert.deepEqual(
      (deleted['issues'] as { kind: string; id: string }[]).map(({ kind, id }) => [kind, id]),
      [['tool_call_decision_missing', call!.tool_call!.object_hash]],
    );
    // decisions added after the fact: the allowed call's exactly as its object records it (the gate
    // keeps no plain allow), and one on a tool call the run never had
    const forged = `sha256:${'e'.repeat(64)}`;
    const added = await tampered(
      `INSERT INTO policy_decisions (event_id, event_hash, decision, rule_id, severity, reason, policy, decided_ns, run_id, seq)
       SELECT hash, hash, d->>'decision', d->>'rule_id', d->>'severity', d->>'reason', d->>'policy', 1, run_id, -1
       FROM (SELECT hash, run_id, json_extract(body, '$.payload.decision') AS d FROM objects
             WHERE kind = 'tool_call' AND json_extract_string(body, '$.payload.tool_call_id') = 'toolu_ls')
       UNION ALL SELECT '${forged}', '${forged}', 'deny', 'secret_path', 'high', 'forged', 'built-in', 1, '${runId}', -1`,
    );
    assert.equal(added['status'], 'failed');
    const [allowed] = await withDatabase(db, (connection) =>
      queryRows(
        connection,
        `SELECT hash FROM objects WHERE kind = 'tool_call' AND json_extract_string(body, '$.payload.tool_call_id') = 'toolu_ls'`,
      ),
    );
    assert.deepEqual(
      (added['issues'] as { kind: string; id: string }[]).map(({ kind, id }) => [kind, id]).sort(),
      [
        ['tool_call_decision_mismatch', allowed!['hash']],
        ['tool_call_decision_mismatch', forged],
        ['tool_call_decision_missing', call!.tool_call!.object_hash],
      ].sort(),
    );
  });
});
