import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { assertErrors, pageItems, request, type JsonAnswer } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';
import { recordCgroupId } from '../support/record-cgroup.js';

const token = 'responses-test-token';
const auth = { authorization: `Bearer ${token}` };

interface Response {
  response_id: string;
  risk_id: string;
  event_id: string;
  rule_id: string;
  decision: string;
  action: string;
  status: string;
  actor: string;
  target: { kind: string; id: string };
  tool_call_id: string | null;
  evidence_level: string;
  reason: string;
  enforcement: { event_id: string; outcome: string; processes_killed: number | null } | null;
}

/** Every response of a run, page by page (each page checked against the OpenAPI document). */
function responsesOf(daemon: RunningDaemon, run: string, limit = 100): Promise<Response[]> {
  return pageItems<Response>(daemon.url, `/v1/security/responses?run=${run}`, 'responses', limit, auth);
}

const now = (): string => new Date().toISOString();

/** Ingests native lines into a daemon that checks the token. */
function ingestNative(daemon: RunningDaemon, lines: readonly string[]): Promise<JsonAnswer> {
  return request(daemon.url, '/v1/telemetry/ingest?format=native', {
    method: 'POST',
    headers: auth,
    body: lines.join('\n'),
  });
}

describe('GET /v1/security/responses (what provd did or recommends for each risk)', function () {
  const daemons = useDaemonFixture();
  // one daemon with the token for the commands it runs and kills, each in a run of its own
  const shared = useSharedDaemon({ authToken: token });
  let empty = '';
  before(function () {
    empty = mkdtempSync(join(tmpdir(), 'provd-responses-cwd-'));
  });
  after(function () {
    rmSync(empty, { recursive: true, force: true });
  });

  it('recommends the action of each decision to the caller, aimed at what the event names', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, {
      run_id: 'run-r',
      tool_call_id: 'tc-1',
      cgroup_id: '777',
      started_at: '2026-01-01T00:00:00Z',
    });
    const lines = [
      nativeLine({ event_type: 'execve', path: '/bin/ls' }),
      nativeLine({ event_type: 'file_open', path: '/home/a/.aws/credentials', pid: 31 }),
      nativeLine({ event_type: 'network_connect', dst_ip: '10.1.2.3', dst_port: 22, pid: 32 }),
      nativeLine({ event_type: 'ptrace', container_id: 'c0ffee', pid: 33 }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
    const responses = await responsesOf(daemon, 'run-r', 1);
    assert.deepEqual(
      responses.map((r) => [r.rule_id, r.action, r.status, r.actor, r.target.kind, r.target.id]),
      [
        ['secret_path', 'kill', 'recommended', 'caller', 'cgroup', '777'],
        ['private_cidr', 'deny', 'recommended', 'caller', 'tool_call', 'tc-1'],
        ['ptrace', 'quarantine', 'recommended', 'caller', 'container', 'c0ffee'],
      ],
    );
    const risks = (await request(daemon.url, '/v1/security/risks?run=run-r')).body['risks'] as {
      risk_id: string;
      evidence: { event_id: string }[];
    }[];
    assert.deepEqual(
      responses.map((r) => [r.risk_id, r.event_id, r.response_id]),
      risks.map((risk) => [
        risk.risk_id,
        risk.evidence[0]!.event_id,
        `response_${risk.evidence[0]!.event_id}`,
      ]),
    );
    for (const response of responses) {
      assert.equal(response.enforcement, null);
      assert.match(response.reason, /provd did not run this process/);
      assert.equal(response.evidence_level, 'kernel_correlated');
    }
  });

  it('needs no action for a detect-only advisory, and refuses bad parameters', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'provd-responses-'));
    const policy = join(dir, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        rules: [{ id: 'watch-ls', decision: 'kill', mode: 'detect', match: { commands: ['ls'] } }],
      }),
    );
    try {
      const daemon = await daemons.start({ args: ['--policy', policy] });
      await bind(daemon.url, { run_id: 'run-d', tool_call_id: 'tc', cgroup_id: '777' });
      await bind(daemon.url, { run_id: 'run-e', tool_call_id: 'tc', cgroup_id: '778' });
      await ingest(
        daemon.url,
        [1, 2].map(() => nativeLine({ path: '/bin/ls', timestamp: now() })).join('\n'),
      );
      const responses = await responsesOf(daemon, 'run-d');
      assert.deepEqual(
        responses.map((r) => [r.decision, r.action, r.status, r.actor]),
        [
          ['allow', 'none', 'not_required', 'none'],
          ['allow', 'none', 'not_required', 'none'],
        ],
      );
      assert.match(responses[0]!.reason, /watch-ls/);
      const first = await request(daemon.url, '/v1/security/responses?run=run-d&limit=1');
      const cursor = first.body['next_cursor'] as string;
      const risksCursor = (await request(daemon.url, '/v1/security/risks?run=run-d&limit=1')).body[
        'next_cursor'
      ] as string;
      const cases: [string, number, string][] = [
        ['/v1/security/responses', 400, 'invalid_argument'],
        ['/v1/security/responses?run=', 400, 'invalid_argument'],
        ['/v1/security/responses?run=nope', 404, 'run_not_found'],
        ['/v1/security/responses?run=run-d&limit=1001', 400, 'invalid_argument'],
        ['/v1/security/responses?run=run-d&cursor=abc', 400, 'invalid_cursor'],
        [`/v1/security/responses?run=run-e&cursor=${cursor}`, 400, 'invalid_cursor'],
        [`/v1/security/responses?run=run-d&cursor=${risksCursor}`, 400, 'invalid_cursor'],
      ];
      await assertErrors(daemon.url, cases);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /**
   * Starts recording `sleep SECONDS` as run `run`'s tool call `tc-<run>` (skipping the test where
   * recorded commands get no cgroup); its answer to come, and its cgroup's id once it runs.
   */
  async function recordSleep(
    test: Mocha.Context,
    daemon: RunningDaemon,
    run: string,
    seconds: string,
  ): Promise<{ recording: Promise<JsonAnswer>; cgroup: string }> {
    const cgroups = probeRecordCgroupRoot();
    if (cgroups.status !== 'ok') {
      process.stderr.write(`      skipped: recorded commands get no cgroup here: ${cgroups.message}\n`);
      test.skip();
    }
    const body = { run_id: run, tool_call_id: `tc-${run}`, command: 'sleep', args: [seconds] };
    // in an empty dir, the file-effect snapshots cost nothing
    const recording = request(daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ ...body, timeout_ms: 50_000, cwd: empty }),
    });
    return { recording, cgroup: await recordCgroupId(cgroups.path, `tc-${run}`) };
  }

  it('kills a command it runs as soon as the policy decides kill on an event of its cgroup, and records it', async function () {
    const { daemon } = shared;
    const { recording, cgroup } = await recordSleep(this, daemon, 'run-k', '60');
    // another sensor saw the command read a secret: its event claims the command's cgroup
    const lines = [
      nativeLine({ event_type: 'execve', path: '/usr/bin/sleep', cgroup_id: cgroup, timestamp: now() }),
      nativeLine({
        event_type: 'file_open',
        path: '/root/.ssh/id_ed25519',
        cgroup_id: cgroup,
        timestamp: now(),
      }),
      nativeLine({
        event_type: 'file_open',
        path: '/root/.aws/credentials',
        cgroup_id: cgroup,
        timestamp: now(),
      }),
    ];
    assert.equal((await ingestNative(daemon, lines)).status, 200);
    const recorded = await recording;
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    assert.equal(recorded.body['signal'], 'SIGKILL');
    assert.equal(recorded.body['status'], 'failed');
    const events = (await request(daemon.url, '/v1/telemetry/events?run=run-k', { headers: auth })).body[
      'events'
    ] as Record<string, unknown>[];
    const secret = events.find((event) => event['type'] === 'secret_path')!;
    const kill = recorded.body['policy_kill'] as Record<string, unknown>;
    assert.deepEqual(
      [kill['event_id'], kill['rule_id'], kill['outcome'], kill['processes_killed']],
      [secret['id'], 'secret_path', 'killed', 1],
    );
    const responses = await responsesOf(daemon, 'run-k');
    assert.deepEqual(
      responses.map((r) => [r.event_id, r.action, r.status, r.actor, r.target.kind, r.target.id]),
      events
        .filter((event) => event['type'] === 'secret_path')
        .map((event) => [event['id'], 'kill', 'enforced', 'provd', 'cgroup', cgroup]),
    );
    // one kill for the tool call: the second risk points at the first event's
    for (const response of responses) assert.equal(response.enforcement?.event_id, secret['id']);
    assert.match(responses[1]!.reason, /killed for event/);
    const verified = await request(daemon.url, '/v1/graph/verify?run=run-k', { headers: auth });
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
  });

  it('says a kill decision came too late when the command it ran had already ended', async function () {
    const { daemon } = shared;
    const { recording, cgroup } = await recordSleep(this, daemon, 'run-late', '0.5');
    const started = now();
    const recorded = await recording;
    assert.equal(recorded.body['exit_code'], 0);
    assert.equal(recorded.body['policy_kill'], null);
    const line = nativeLine({
      event_type: 'file_open',
      path: '/root/.netrc',
      cgroup_id: cgroup,
      timestamp: started,
    });
    assert.equal((await ingestNative(daemon, [line])).status, 200);
    const [response, ...rest] = await responsesOf(daemon, 'run-late');
    assert.equal(rest.length, 0);
    assert.deepEqual(
      [response!.action, response!.status, response!.actor, response!.enforcement],
      ['kill', 'not_enforced', 'provd', null],
    );
    assert.match(response!.reason, /had ended .* before provd judged this event/);
  });
});
