// run-suites: capture agents only (each daemon's sensor has the default --capture agents: it stores
// only the commands the test records, what other files run meanwhile is filtered out in the kernel)
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { runCli } from '../support/cli.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { request, type JsonAnswer } from '../support/http.js';
import { awaitEvents, netnsUnavailable, trigger, type StoredEvent } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';
import { eventually, softDeadline } from '../support/eventually.js';

const token = 'sensor-policy-test-token';
const auth = { authorization: `Bearer ${token}` };

interface Risk {
  rule_id: string;
  decision: string;
  evidence: { event_id: string; type: string; evidence_level: string }[];
}

/** GET with the token; the answer is checked against the OpenAPI document. */
function get(daemon: RunningDaemon, path: string): Promise<JsonAnswer> {
  return request(daemon.url, path, { headers: auth });
}

/** The run's risks, once `wanted` holds of them (the policy judges events as they are committed). */
async function awaitRisks(
  daemon: RunningDaemon,
  run: string,
  wanted: (risks: Risk[]) => boolean,
): Promise<Risk[]> {
  const read = async (): Promise<Risk[]> =>
    (await get(daemon, `/v1/security/risks?run=${run}&limit=1000`)).body['risks'] as Risk[];
  return eventually(`risks of ${run}`, read, wanted, softDeadline);
}

describe('the policy on the eBPF sensor’s own events', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-sensor-policy-');
  before(function () {
    const why =
      sensorUnavailable() ?? (probeRecordCgroupRoot().status === 'ok' ? undefined : 'no record cgroups');
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });

  /** Records `command ARGS` in `work`; the record answer. */
  async function record(
    daemon: RunningDaemon,
    run: string,
    command: string,
    args: string[],
  ): Promise<JsonAnswer> {
    const answer = await request(daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        run_id: run,
        tool_call_id: `${run}-call`,
        command,
        args,
        cwd: work.path,
        timeout_ms: 60_000,
      }),
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer;
  }

  it('kills a recorded command the moment the sensor sees it read a credentials file', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token });
    mkdirSync(join(work.path, '.aws'));
    writeFileSync(join(work.path, '.aws', 'credentials'), '[default]\n');
    // were it not killed, it would sleep for a minute and exit 0
    const recorded = await record(daemon, 'run-kill', 'sh', [
      '-c',
      'cat .aws/credentials > /dev/null; sleep 60',
    ]);
    assert.equal(recorded.body['signal'], 'SIGKILL', JSON.stringify(recorded.body));
    assert.equal(recorded.body['exit_code'], null);
    const kill = recorded.body['policy_kill'] as Record<string, unknown>;
    assert.deepEqual([kill['rule_id'], kill['outcome']], ['secret_path', 'killed']);
    assert.ok((kill['processes_killed'] as number) >= 1);
    const events = await awaitEvents(daemon, 'run-kill', auth, (all) =>
      all.some((e) => e['id'] === kill['event_id']),
    );
    const secret = events.find((event) => event['id'] === kill['event_id'])!;
    assert.deepEqual(
      [secret.type, secret.source, secret.attrs['path'], secret.correlation.evidence_level],
      ['secret_path', 'provd_sensor', join(work.path, '.aws', 'credentials'), 'kernel_correlated'],
    );
    const { body } = await get(daemon, '/v1/security/responses?run=run-kill');
    const response = (body['responses'] as Record<string, unknown>[]).find(
      (r) => r['event_id'] === secret['id'],
    )!;
    assert.deepEqual(
      [
        response['action'],
        response['status'],
        response['actor'],
        (response['target'] as { kind: string }).kind,
      ],
      ['kill', 'enforced', 'provd', 'cgroup'],
    );
    const verified = await get(daemon, '/v1/graph/verify?run=run-kill');
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
  });

  it('provd record exits 137 and names the rule when the policy killed the command', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token });
    writeFileSync(join(work.path, '.env'), 'API_KEY=x\n');
    const env = { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: token };
    const ran = await runCli(
      ['record', '--run', 'run-cli-kill', '--', 'sh', '-c', 'cat .env > /dev/null; sleep 60'],
      { env, cwd: work.path },
    );
    assert.equal(ran.code, 128 + 9, ran.stderr);
    assert.match(ran.stderr, /failed, SIGKILL, .*; policy rule secret_path killed it \(event [^)]+\)\n$/);
  });

  it('turns the ptrace, setuid-to-root and classified-connect rules on sensed events into risks', async function () {
    const daemon = await fixture.start({ sensor: true, authToken: token });
    await record(daemon, 'run-ptrace', 'python3', [trigger, 'ptrace']);
    await record(daemon, 'run-root', 'python3', ['-c', 'import os; os.setgid(0); os.setuid(0)']);
    const expected: [string, [string, string, string][]][] = [
      ['run-ptrace', [['ptrace', 'quarantine', 'ptrace']]],
      [
        'run-root',
        [
          ['privilege_escalation', 'quarantine', 'setgid'],
          ['privilege_escalation', 'quarantine', 'setuid'],
        ],
      ],
    ];
    // the classified connects need a network namespace of the test's own making: nothing leaves the host
    if (netnsUnavailable() === undefined) {
      await record(daemon, 'run-classified', 'unshare', ['--net', 'python3', trigger, 'classified', '8077']);
      expected.push([
        'run-classified',
        [
          // `ip address add 169.254.169.254/32 dev lo` names the metadata address on its command line
          ['metadata_ip', 'quarantine', 'execve'],
          ['metadata_ip', 'quarantine', 'metadata_ip'],
          ['private_cidr', 'deny', 'private_cidr'],
          ['private_cidr', 'deny', 'private_cidr'],
        ],
      ]);
    } else process.stderr.write(`      classified connects skipped: ${netnsUnavailable()}\n`);
    for (const [run, risks] of expected) {
      const found = await awaitRisks(daemon, run, (all) => all.length >= risks.length);
      assert.deepEqual(
        found.map((risk) => [risk.rule_id, risk.decision, risk.evidence[0]!.type]),
        risks,
        run,
      );
      for (const risk of found) assert.equal(risk.evidence[0]!.evidence_level, 'kernel_correlated');
    }
    const sensed = (events: StoredEvent[]): boolean =>
      events.every((event) => event.source === 'provd_sensor');
    assert.ok(sensed(await awaitEvents(daemon, 'run-root', auth, () => true)));
  });
});
