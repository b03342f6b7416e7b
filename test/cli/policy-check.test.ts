import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runDaemonCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

interface CheckBody {
  schema_version: string;
  valid: boolean;
  rules: { id: string; decision: string; mode: string; origin: string }[] | null;
  error: { message: string; line: number | null } | null;
}

describe('provd policy check', function () {
  const work = useTempDir('provd-policy-check-', { per: 'suite' });
  const file = (name: string, text: string): string => {
    const path = join(work.path, name);
    writeFileSync(path, text);
    return path;
  };

  it('prints the rules in decision order: the file, the built-in rules it keeps, default_allow; exit 0', async function () {
    const path = file(
      'ok.yaml',
      'rules:\n  - id: no-netcat\n    decision: deny\n    mode: detect\n    match:\n      commands: [nc, ncat]\n' +
        '  - id: ptrace\n    decision: kill\n    match: { event_types: [ptrace] }\n',
    );
    const text = await runCli(['policy', 'check', path]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `${path}: valid, 8 rules, first match wins`);
    assert.match(lines[1]!, /^RULE_ID +MATCH +DECISION +MODE +FROM$/);
    assert.match(lines[2]!, /^no-netcat +commands=nc,ncat +deny +detect +file$/);
    assert.match(lines[3]!, /^ptrace +event_types=ptrace +kill +enforce +file$/);
    assert.deepEqual(
      lines.slice(4).map((line) => line.split(/\s+/)[0]),
      [
        'metadata_ip',
        'secret_path',
        'host_resolver',
        'private_cidr',
        'privilege_escalation',
        'default_allow',
      ],
    );
    assert.match(lines.at(-1)!, /^default_allow +\(anything else\) +allow +enforce +built-in$/);

    const json = await runCli(['policy', 'check', '--json', path]);
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout) as CheckBody;
    assert.equal(body.schema_version, 'provenance.policy_check/v1');
    assert.equal(body.valid, true);
    assert.equal(body.error, null);
    assert.deepEqual(
      body.rules?.map((rule) => [rule.id, rule.decision, rule.mode, rule.origin]),
      [
        ['no-netcat', 'deny', 'detect', 'file'],
        ['ptrace', 'kill', 'enforce', 'file'],
        ['metadata_ip', 'quarantine', 'enforce', 'built-in'],
        ['secret_path', 'kill', 'enforce', 'built-in'],
        ['host_resolver', 'allow', 'enforce', 'built-in'],
        ['private_cidr', 'deny', 'enforce', 'built-in'],
        ['privilege_escalation', 'quarantine', 'enforce', 'built-in'],
        ['default_allow', 'allow', 'enforce', 'built-in'],
      ],
    );
  });

  it('refuses a wrong file with FILE:LINE and the loader message, exit 1, and the daemon refuses the same file', async function () {
    const cases: [string, string, number, RegExp][] = [
      [
        'type.yaml',
        'rules:\n  - id: a\n    decision: deny\n    match:\n      - commands: [x]\n      - event_types: [exec]\n',
        6,
        /rules\[0\] \(a\): match\[1\]\.event_types\[0\]: "exec" is not an event type/,
      ],
      [
        'field.json',
        '{\n  "rules": [\n    {"id": "a",\n     "decison": "deny"}\n  ]\n}\n',
        4,
        /unknown field "decison"/,
      ],
      [
        'twice.yaml',
        'rules:\n  - id: a\n    decision: deny\n    match: {commands: [x]}\n  - id: a\n    decision: kill\n    match: {commands: [y]}\n',
        5,
        /rule id "a" is given twice/,
      ],
      ['syntax.yaml', 'rules:\n  - id: a\n    decision: [deny\n', 4, /not valid YAML/],
      ['syntax.json', '{"rules": [\n  {"id": "a",}\n]}\n', 2, /not valid JSON/],
      [
        'cidr.yaml',
        'rules:\n  - id: a\n    decision: deny\n    match: {dst_ips: [10.0.0.0/33]}\n',
        2,
        /prefix length past 32/,
      ],
      ['top.yaml', 'include_default_rules: maybe\n', 1, /include_default_rules must be true or false/],
    ];
    for (const [name, text, line, message] of cases) {
      const path = file(name, text);
      const run = await runCli(['policy', 'check', path]);
      assert.equal(run.code, 1, `${name}: ${run.stderr}`);
      assert.equal(run.stdout, '', name);
      assert.ok(run.stderr.startsWith(`${path}:${line}: `), `${name}: ${run.stderr}`);
      assert.match(run.stderr, message, name);
      const json = await runCli(['policy', 'check', '--json', path]);
      assert.equal(json.code, 1, name);
      const body = JSON.parse(json.stdout) as CheckBody;
      assert.equal(body.valid, false, name);
      assert.equal(body.rules, null, name);
      assert.equal(body.error?.line, line, name);
      assert.match(body.error?.message ?? '', message, name);
    }
    const started = await runDaemonCli(join(work.path, 'data'), ['--policy', join(work.path, 'type.yaml')]);
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, /"exec" is not an event type/);
  });

  it('exits 2 without a FILE, with two, or with a FILE that is missing, a directory, a device or a FIFO (without waiting on it)', async function () {
    const fifo = join(work.path, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(work.path, 'dir.yaml'));
    symlinkSync('/dev/zero', join(work.path, 'zero.yaml'));
    const cases: [string[], RegExp][] = [
      [[], /Not enough positional arguments/],
      [['a.yaml', 'b.yaml'], /Extraneous positional argument/],
      [[join(work.path, 'absent.yaml')], /absent\.yaml: cannot be read: ENOENT/],
      [[join(work.path, 'dir.yaml')], /dir\.yaml: cannot be read: it is not a regular file/],
      [[join(work.path, 'zero.yaml')], /zero\.yaml: cannot be read: it is not a regular file/],
      [[fifo], /pipe\.yaml: cannot be read: it is not a regular file/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['policy', 'check', ...args]);
      assert.match(run.stderr, message, args.join(' '));
      assert.equal(run.code, 2, args.join(' '));
    }
  });

  it('refuses hostile files as invalid (alias bomb, deep nesting, over 1 MiB) and prints no control character a file holds', async function () {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const name = String.fromCharCode(97 + level);
      bomb.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(', ')}]`,
      );
    }
    bomb.push('rules: *i');
    const cases: [string, string, RegExp][] = [
      ['bomb.yaml', bomb.join('\n'), /aliases expand past 100 nodes/],
      ['deep.json', `{"rules": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`, /nests \d+ levels deep/],
      ['huge.json', `{"rules": [], "x": "${'a'.repeat(1024 * 1024)}"}`, /more than 1048576/],
    ];
    for (const [name, text, message] of cases) {
      const run = await runCli(['policy', 'check', file(name, text)]);
      assert.equal(run.code, 1, `${name}: ${run.stderr}`);
      assert.match(run.stderr, message, name);
      assert.doesNotMatch(run.stderr, /^\s+at /m, `${name}: no stack trace`);
    }
    const escape = String.fromCharCode(27);
    const valid = file(
      'escape.json',
      JSON.stringify({ rules: [{ id: 'a', decision: 'deny', match: { commands: [`${escape}[2Jnc`] } }] }),
    );
    const shown = await runCli(['policy', 'check', valid]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(!shown.stdout.includes(escape), 'the escape reaches the terminal');
    assert.match(shown.stdout, /commands=\\u001b\[2Jnc/);
    const invalid = file(
      'escape.yaml',
      `rules:\n  - id: a\n    decision: "${escape}[31mdeny"\n    match: {commands: [x]}\n`,
    );
    const refused = await runCli(['policy', 'check', invalid]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.ok(!refused.stderr.includes(escape), 'the escape reaches the terminal');
    assert.match(refused.stderr, /decision must be one of/);
  });
});
