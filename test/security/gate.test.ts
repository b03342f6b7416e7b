import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDaemonCli } from '../support/cli.js';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';

const token = 'gate-test-token';
const auth = { authorization: `Bearer ${token}` };

/** Each table of a stopped daemon's database, with its row count. */
function rowCounts(db: string): Promise<Record<string, number>> {
  return withDatabase(db, async (connection) => {
    const tables = await queryRows(
      connection,
      "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1",
    );
    const counts: Record<string, number> = {};
    for (const { table_name: table } of tables) {
      const [row] = await queryRows(connection, `SELECT count(*)::INTEGER AS n FROM "${String(table)}"`);
      counts[String(table)] = Number(row!['n']);
    }
    return counts;
  });
}

describe('POST /v1/security/evaluate (the policy preflight)', function () {
  const fixture = useDaemonFixture();
  // one daemon with the token and the built-in policy for the tests that only ask it
  const shared = useSharedDaemon({ authToken: token });
  let work = '';
  before(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-gate-'));
  });
  after(function () {
    rmSync(work, { recursive: true, force: true });
  });

  const evaluate = (url: string, body: unknown): ReturnType<typeof request> =>
    request(url, '/v1/security/evaluate', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('answers each of the four decisions with its rule and reason, and stores nothing', async function () {
    const first = await fixture.start({ authToken: token });
    await first.stop();
    const before = await rowCounts(join(fixture.dataDir, 'provd.duckdb'));
    const daemon = await fixture.start({ authToken: token });
    const cases: [unknown, string, string][] = [
      [{ event_type: 'execve', command: 'ls', args: ['-l'] }, 'allow', 'default_allow'],
      [{ event_type: 'network_connect', dst_ip: '10.0.0.5' }, 'deny', 'private_cidr'],
      [
        { event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/latest/meta-data/'] },
        'quarantine',
        'metadata_ip',
      ],
      [{ event_type: 'file_open', path: '/home/agent/.ssh/id_rsa' }, 'kill', 'secret_path'],
      [{ event_type: 'setuid', target_id: 0 }, 'quarantine', 'privilege_escalation'],
      [{ event_type: 'ptrace' }, 'quarantine', 'ptrace'],
    ];
    for (const [body, decision, rule] of cases) {
      const { status, body: answer } = await evaluate(daemon.url, body);
      assert.equal(status, 200, JSON.stringify(answer));
      assert.deepEqual(
        [
          answer['schema_version'],
          answer['decision'],
          answer['rule_id'],
          answer['policy'],
          answer['enforced'],
        ],
        ['provenance.gate/v1', decision, rule, 'built-in', false],
        JSON.stringify(body),
      );
      assert.equal(typeof answer['reason'], 'string');
    }
    await daemon.stop();
    assert.deepEqual(
      await rowCounts(join(fixture.dataDir, 'provd.duckdb')),
      before,
      'every table holds exactly the rows it held before',
    );
  });

  it('refuses a body it cannot evaluate, naming the field, and asks for the token', async function () {
    const { daemon } = shared;
    const cases: [unknown, RegExp][] = [
      ['{"event_type": ', /body: not valid JSON/],
      [[], /must be a JSON object/],
      [{}, /event_type is required/],
      [{ event_type: 'exec' }, /event_type must be one of/],
      [{ event_type: 'execve', args: 'ls -l' }, /args must be/],
      [{ event_type: 'setuid', target_id: -1 }, /target_id must be/],
      [{ event_type: 'setuid', target_id: '0' }, /target_id must be/],
      [{ event_type: 'execve', command: '' }, /command must be/],
      [{ event_type: 'execve', verdict: 'allow' }, /unknown field "verdict" in the evaluate body/],
    ];
    for (const [body, message] of cases) {
      const { status, body: answer } = await evaluate(daemon.url, body);
      assert.equal(status, 400, JSON.stringify(body));
      const error = answer['error'] as { code: string; message: string };
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, message, JSON.stringify(body));
    }
    const unauthorized = await request(daemon.url, '/v1/security/evaluate', {
      method: 'POST',
      body: JSON.stringify({ event_type: 'ptrace' }),
    });
    assert.equal(unauthorized.status, 401);
  });

  it('decides with the rules file given with --policy: a custom rule, a detect-only rule, and the built-in rest', async function () {
    const policy = join(work, 'policy.yaml');
    writeFileSync(
      policy,
      `rules:
  - id: no-netcat
    decision: kill
    severity: high
    reason: netcat opens raw sockets
    match: { commands: [nc, ncat] }
  - id: watch-private
    decision: deny
    mode: detect
    reason: private network, watched
    match: { dst_ips: [10.0.0.0/8] }
`,
    );
    const daemon = await fixture.start({ authToken: token, args: ['--policy', policy] });
    const netcat = await evaluate(daemon.url, {
      event_type: 'execve',
      command: '/bin/nc',
      args: ['-l', '4444'],
    });
    assert.deepEqual(
      [netcat.body['decision'], netcat.body['rule_id'], netcat.body['reason'], netcat.body['policy']],
      ['kill', 'no-netcat', 'netcat opens raw sockets', policy],
    );
    const watched = await evaluate(daemon.url, { event_type: 'network_connect', dst_ip: '10.9.9.9' });
    assert.deepEqual(
      [watched.body['decision'], watched.body['rule_id'], watched.body['advisory']],
      [
        'allow',
        'default_allow',
        { rule_id: 'watch-private', decision: 'deny', reason: 'private network, watched' },
      ],
    );
    const shadow = await evaluate(daemon.url, { event_type: 'file_open', path: '/etc/shadow' });
    assert.deepEqual([shadow.body['decision'], shadow.body['rule_id']], ['kill', 'secret_path']);
  });

  it('judges an execve by every program, path and host its command line names', async function () {
    const { daemon } = shared;
    const judged = async (body: unknown): Promise<unknown[]> => {
      const answer = await evaluate(daemon.url, body);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const { decision, rule_id: rule, subject, reason, unreadable } = answer.body;
      return [decision, rule, subject, reason, unreadable];
    };
    const shadowReason =
      'reads /etc/shadow: secret_path, touches a file that holds credentials, keys or tokens';
    assert.deepEqual(await judged({ event_type: 'execve', command: 'cat', args: ['/etc/shadow'] }), [
      'kill',
      'secret_path',
      'reads /etc/shadow',
      shadowReason,
      [],
    ]);
    assert.deepEqual(
      await judged({
        event_type: 'execve',
        command: '/bin/bash',
        args: ['-c', 'cat /etc/shadow > stolen.txt'],
        cwd: '/srv/p',
      }),
      ['kill', 'secret_path', 'reads /etc/shadow', shadowReason, []],
    );
    assert.deepEqual(await judged({ event_type: 'execve', command: 'cat', args: ['.env'], cwd: '/srv/p' }), [
      'kill',
      'secret_path',
      'reads /srv/p/.env',
      'reads /srv/p/.env: secret_path, touches a file that holds credentials, keys or tokens',
      [],
    ]);
    assert.deepEqual(await judged({ event_type: 'execve', command: 'cat', args: ['shadow.txt'] }), [
      'allow',
      'default_allow',
      null,
      'no rule of the policy matches',
      [],
    ]);
    assert.deepEqual(await judged({ event_type: 'execve', command: 'sh', args: ['-c', 'cat "$F"'] }), [
      'allow',
      'default_allow',
      null,
      'no rule of the policy matches',
      ['an argument is $F: known only when it runs'],
    ]);
    // the action as given still decides with its rule's own reason; other actions as before
    assert.deepEqual(
      await judged({ event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/'] }),
      [
        'quarantine',
        'metadata_ip',
        'runs curl',
        'reaches a cloud instance metadata endpoint, where instance credentials are served',
        [],
      ],
    );
    assert.deepEqual(await judged({ event_type: 'file_open', path: '/etc/shadow' }), [
      'kill',
      'secret_path',
      null,
      'touches a file that holds credentials, keys or tokens',
      [],
    ]);
    const relative = await evaluate(daemon.url, { event_type: 'execve', command: 'ls', cwd: 'tmp' });
    assert.equal(relative.status, 400);
  });

  it('does not start on a malformed rules file, saying which rule and field are wrong', async function () {
    const policy = join(work, 'bad.yaml');
    writeFileSync(policy, 'rules:\n  - id: r1\n    decision: block\n    match: { commands: [nc] }\n');
    const run = await runDaemonCli(join(work, 'data'), ['--policy', policy]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(
      run.stderr.trim().split('\n').at(-1),
      `provd: invalid_argument: policy ${policy}: rules[0] (r1): decision must be one of allow, deny, quarantine, kill, not "block"`,
    );
  });
});
