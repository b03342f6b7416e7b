import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useSharedDaemon } from '../support/daemon.js';
import { daemonBody, recordSnakeRun } from '../support/snake-run.js';

describe('provd verify, timeline, explain, risks and summary', function () {
  const shared = useSharedDaemon({ authToken: 'tok' });
  const env = { PROVD_AUTH_TOKEN: 'tok' };
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli([...args, '--url', shared.daemon.url], { env: { ...env, ...extra } });
  const body = (path: string): Promise<unknown> => daemonBody(shared.daemon.url, 'tok', path);

  before(async function () {
    await recordSnakeRun(shared.daemon.url, 'tok');
  });

  it('says the verdict first for verify, and --json is the daemon body', async function () {
    const human = await cli(['verify', 'run-snake']);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, 'verify run-snake: ok (0 issues: 0 errors, 0 warnings)\n');
    const json = await cli(['verify', 'run-snake', '--json']);
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout), await body('/v1/graph/verify?run=run-snake'));
  });

  it('prints the timeline as aligned columns in UTC, and --causality as a tree', async function () {
    const table = await cli(['timeline', 'run-snake']);
    assert.equal(table.code, 0, table.stderr);
    const [header, binding, firstEvent, ...rest] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^TIME \(UTC\) +KIND +TOOL CALL +EVIDENCE +SUMMARY$/);
    assert.match(
      binding!,
      /^2026-06-29 10:00:00\.000 +binding +tc-snake +context_asserted +binding of tool call tc-snake/,
    );
    assert.match(
      firstEvent!,
      /^2026-06-29 10:00:01\.000 +event +tc-snake +kernel_correlated +\?\[4000\] execve$/,
    );
    assert.equal(rest.length, 6);
    // every column starts where its header does
    assert.equal(binding!.indexOf('binding'), header!.indexOf('KIND'));
    assert.equal(firstEvent!.indexOf('kernel_correlated'), header!.indexOf('EVIDENCE'));

    const tree = await cli(['timeline', 'run-snake', '--causality']);
    assert.equal(tree.code, 0, tree.stderr);
    const lines = tree.stdout.trimEnd().split('\n');
    assert.equal(
      lines[0],
      'run run-snake  7 events (execve 3, secret_path 2, metadata_ip 1, private_cidr 1)',
    );
    assert.match(
      lines[1]!,
      /^└─ tool call tc-snake {2}7 events .*, 1 binding, 2026-06-29 10:00:01\.000 \.\. 2026-06-29 10:00:07\.000$/,
    );
    assert.match(lines[2]!, /^ {3}└─ process 4000 \(ppid 1\) {2}1 event \(execve 1\)$/);
    assert.match(
      lines[3]!,
      /^ {6}├─ 2026-06-29 10:00:01\.000 {2}execve {2}kernel_correlated {2}\?\[4000\] execve$/,
    );
    assert.match(lines[4]!, /^ {6}└─ process 5310 \(ppid 4000\)/);
    assert.match(lines.at(-1)!, /^ {12}└─ 2026-06-29 10:00:07\.000 {2}private_cidr .* 10\.0\.0\.5:443$/);

    const json = await cli(['timeline', 'run-snake', '--causality', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), await body('/v1/timeline?run=run-snake&view=causality'));
  });

  it('pages the timeline, naming the next cursor on stderr', async function () {
    const first = await cli(['timeline', 'run-snake', '--limit', '2']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trimEnd().split('\n').length, 3);
    const cursor = /--cursor ([A-Za-z0-9_-]+)\n$/.exec(first.stderr)?.[1];
    assert.ok(cursor, first.stderr);
    const next = await cli(['timeline', 'run-snake', '--limit', '2', '--cursor', cursor]);
    assert.match(next.stdout.split('\n')[1]!, /^2026-06-29 10:00:02\.000 +event/);
  });

  it('lists the risks with severity, decision and rule, and --json is the daemon body', async function () {
    const { code, stdout, stderr } = await cli(['risks', 'run-snake']);
    assert.equal(code, 0, stderr);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    assert.match(header!, /^TIME \(UTC\) +SEVERITY +DECISION +RULE +TOOL CALL +EVIDENCE +RISK +REASON$/);
    assert.deepEqual(
      rows.map((row) => row.split(/ {2,}/).slice(1, 4)),
      [
        ['critical', 'kill: not enforced, not a command provd ran', 'secret_path'],
        ['critical', 'kill: not enforced, not a command provd ran', 'secret_path'],
        ['high', 'quarantine: not enforced, not a command provd ran', 'metadata_ip'],
        ['medium', 'deny: not enforced, not a command provd ran', 'private_cidr'],
      ],
    );
    const json = await cli(['risks', 'run-snake', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), await body('/v1/security/risks?run=run-snake'));
  });

  it('explains a risk step by step up to its run, and refuses a --file without --run', async function () {
    const risks = (await body('/v1/security/risks?run=run-snake')) as { risks: { risk_id: string }[] };
    const riskId = risks.risks[1]!.risk_id;
    const { code, stdout, stderr } = await cli(['explain', '--risk', riskId]);
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split('\n');
    assert.equal(
      lines[0],
      `risk ${riskId}: critical kill by rule secret_path: touches a file that holds credentials, keys or tokens`,
    );
    assert.equal(lines[2], 'path to the run (3 steps):');
    assert.match(lines[3]!, /^ {2}↑ judged \(policy:built-in, kernel_correlated\)$/);
    assert.match(lines[4]!, /^ {4}event \S+: secret_path by \? \(pid 5311\): \/root\/\.ssh\/id_rsa$/);
    assert.match(
      lines[5]!,
      /^ {2}↑ attributed_to \(container, confidence 0\.92, kernel_correlated, binding bnd_/,
    );
    assert.equal(lines.at(-1), '    run run-snake');

    const file = await cli(['explain', '--file', '/root/.ssh/id_rsa', '--run', 'run-snake', '--json']);
    assert.equal(file.code, 0, file.stderr);
    assert.deepEqual(
      JSON.parse(file.stdout),
      await body('/v1/graph/explain?file=%2Froot%2F.ssh%2Fid_rsa&run=run-snake'),
    );

    const noRun = await cli(['explain', '--file', '/root/.ssh/id_rsa']);
    assert.equal(noRun.code, 2);
    assert.match(noRun.stderr, /^provd: PROVD_ERR_CONFIG_INVALID: --file needs --run/);
    const nothing = await cli(['explain']);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /name a node: --event, --process, --tool-call, --file \(with --run\)/);
    const unknown = await cli(['explain', '--event', 'no-such-event']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^provd: \w+: .*no-such-event/);
  });

  it('summarizes a run in labelled lines, and --json is the daemon body', async function () {
    const { code, stdout, stderr } = await cli(['summary', 'run-snake']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^run +run-snake\n/);
    assert.match(stdout, /\nevents +7, 2026-06-29 10:00:01\.000 \.\. 2026-06-29 10:00:07\.000 UTC\n/);
    assert.match(stdout, /\n {2}by type +execve 3, secret_path 2, metadata_ip 1, private_cidr 1\n/);
    assert.match(
      stdout,
      /\nfiles +2 distinct: \/root\/\.aws\/credentials \(1\), \/root\/\.ssh\/id_rsa \(1\)\n/,
    );
    const json = await cli(['summary', 'run-snake', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), await body('/v1/observe/summary?run=run-snake'));
  });

  it('prints the signals in sections, and --json is the daemon body', async function () {
    const { code, stdout, stderr } = await cli(['signals', 'run-snake']);
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /^run +run-snake\nevents span +2026-06-29 10:00:01\.000 \.\. 2026-06-29 10:00:07\.000 UTC \(6 s\)\n/,
    );
    assert.match(stdout, /\nbehaviour\n {2}events +7, /);
    assert.match(
      stdout,
      /\nsecurity\n {2}risks +4: critical 2, high 1, medium 1; kill 2, quarantine 1, deny 1\n/,
    );
    assert.match(stdout, /\n {2}by rule +secret_path 2, metadata_ip 1, private_cidr 1\n/);
    const json = await cli(['signals', 'run-snake', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), await body('/v1/signals?run=run-snake'));
  });

  it('says an unknown run clearly: exit 1, verify 3 (no verdict)', async function () {
    for (const command of ['timeline', 'risks', 'summary', 'signals', 'events']) {
      const { code, stdout, stderr } = await cli([command, 'no-such-run']);
      assert.equal(code, 1, command);
      assert.equal(stdout, '');
      assert.equal(stderr, 'provd: run_not_found: no run "no-such-run" is known\n', command);
    }
    const verify = await cli(['verify', 'no-such-run']);
    assert.equal(verify.code, 3);
    assert.equal(verify.stderr, 'provd: run_not_found: no run "no-such-run" is known\n');
  });

  it('exits 2 with the usage when RUN is missing', async function () {
    for (const command of ['verify', 'timeline', 'risks', 'summary', 'signals', 'events']) {
      const { code, stdout, stderr } = await cli([command]);
      assert.equal(code, 2, command);
      assert.equal(stdout, '');
      // verify without RUN may mean verify --bundle, events may mean events --host: each names both
      const expected =
        command === 'verify'
          ? /verify needs a RUN .* or --bundle DIR/
          : command === 'events'
            ? /name a RUN, or --host for the events of no run/
            : /Not enough positional arguments/;
      assert.match(stderr, expected, command);
    }
  });

  it('names PROVD_AUTH_TOKEN when the daemon refuses the token', async function () {
    const wrong = await runCli(['verify', 'run-snake', '--url', shared.daemon.url], {
      env: { PROVD_AUTH_TOKEN: 'nope' },
    });
    assert.equal(wrong.code, 3);
    assert.match(
      wrong.stderr,
      /^provd: unauthorized: .*PROVD_AUTH_TOKEN.* is not the daemon's --auth-token\)\n$/,
    );
    const none = await runCli(['timeline', 'run-snake', '--url', shared.daemon.url]);
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /^provd: unauthorized: .*\(set PROVD_AUTH_TOKEN, or PROVD_AUTH_TOKEN_FILE, to the daemon's --auth-token\)\n$/,
    );
  });
});
