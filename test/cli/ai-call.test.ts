import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useDaemonFixture } from '../support/daemon.js';
import { aiRun, seedRun } from '../support/mcp.js';

/** A CLI's stdout as one JSON object. */
function parsed(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('provd ai call', function () {
  const fixture = useDaemonFixture();

  it('prints the tool result as JSON and exits 0, with the input inline or from stdin', async function () {
    const daemon = await fixture.start();
    await seedRun(daemon.url);
    const risks = await runCli([
      'ai',
      'call',
      'list_risks',
      '--url',
      daemon.url,
      '--input',
      JSON.stringify({ run: aiRun }),
    ]);
    assert.equal(risks.code, 0, risks.stderr);
    const page = JSON.parse(risks.stdout) as { schema_version: string; risks: { rule_id: string }[] };
    assert.equal(page.schema_version, 'provenance.security_risks/v1');
    assert.deepEqual(
      page.risks.map(({ rule_id }) => rule_id),
      ['secret_path', 'private_cidr'],
    );
    assert.ok(risks.stdout.includes('\n  "'), 'pretty-printed for a person');
    const gate = await runCli(['ai', 'call', 'evaluate_action', '--input', '-', '--json'], {
      env: { PROVD_URL: daemon.url },
      input: '{"event_type":"file_open","path":"/etc/shadow"}',
    });
    assert.equal(gate.code, 0, gate.stderr);
    assert.equal(gate.stdout.split('\n').length, 2, '--json prints one line');
    assert.deepEqual(
      [parsed(gate.stdout)['decision'], parsed(gate.stdout)['rule_id']],
      ['kill', 'secret_path'],
    );
  });

  it('forces the trust boundary as the MCP server does', async function () {
    const daemon = await fixture.start();
    const bound = await runCli([
      'ai',
      'call',
      'bind_scope',
      '--url',
      daemon.url,
      '--input',
      JSON.stringify({
        run_id: 'r',
        tool_call_id: 't',
        pid: 99,
        binding_source: 'k8s_cgroup',
        confidence: 0.9,
      }),
    ]);
    assert.equal(bound.code, 0, bound.stderr);
    assert.deepEqual(
      [parsed(bound.stdout)['binding_source'], parsed(bound.stdout)['confidence']],
      ['ai_asserted', 0.5],
    );
  });

  it('exits 1 with the error on stderr, or with --json the error body on stdout, when the tool fails', async function () {
    const daemon = await fixture.start({ authToken: 'tok' });
    const unknownRun = await runCli(
      ['ai', 'call', 'verify_run', '--url', daemon.url, '--input', '{"run":"nope"}'],
      {
        env: { PROVD_AUTH_TOKEN: 'tok' },
      },
    );
    assert.deepEqual([unknownRun.code, unknownRun.stdout], [1, '']);
    assert.equal(unknownRun.stderr, 'provd: run_not_found: no run "nope" is known\n');
    const noToken = await runCli([
      'ai',
      'call',
      'verify_run',
      '--url',
      daemon.url,
      '--input',
      '{"run":"nope"}',
      '--json',
    ]);
    assert.equal(noToken.code, 1);
    assert.equal((parsed(noToken.stdout)['error'] as { code: string }).code, 'unauthorized');
    const badInput = await runCli(
      ['ai', 'call', 'list_events', '--url', daemon.url, '--input', '{"run":"r","limit":"ten"}'],
      {
        env: { PROVD_AUTH_TOKEN: 'tok' },
      },
    );
    assert.equal(badInput.code, 1);
    assert.match(badInput.stderr, /^provd: invalid_argument: limit must be an integer/);
  });

  it('exits 2 for an unknown tool, input that is not a JSON object, or a daemon it cannot reach', async function () {
    const cases: [string[], string | undefined, RegExp][] = [
      [
        ['ai', 'call', 'rm_rf'],
        undefined,
        /^provd: PROVD_ERR_CLI_USAGE: unknown tool "rm_rf"; the tools are verify_run, explain, /,
      ],
      [['ai', 'call', 'verify_run', '--input', '{"run":'], undefined, /--input must be a JSON object: /],
      [
        ['ai', 'call', 'verify_run', '--input', '["r"]'],
        undefined,
        /--input must be a JSON object, got \["r"\]/,
      ],
      [['ai', 'call', 'verify_run', '--input', '-'], 'null', /stdin must be a JSON object, got null/],
      [['ai', 'call'], undefined, /Not enough positional arguments|TOOL/],
      [
        ['ai', 'call', 'verify_run', '--url', 'ftp://x', '--input', '{"run":"r"}'],
        undefined,
        /--url must be the daemon's http\(s\) base URL/,
      ],
      [
        ['ai', 'call', 'verify_run', '--url', 'http://127.0.0.1:1', '--input', '{"run":"r"}'],
        undefined,
        /PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon/,
      ],
    ];
    for (const [args, input, message] of cases) {
      const result = await runCli(args, input === undefined ? {} : { input });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '', args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
  });
});
