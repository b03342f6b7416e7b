import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRules } from '../../src/security/policy/default-policy.js';
import { loadPolicyFile, PolicyFileError } from '../../src/security/policy/policy-file.js';
import { runDaemonCli } from '../support/cli.js';

describe('policy rules files (--policy)', function () {
  let work = '';
  before(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-policy-'));
  });
  after(function () {
    rmSync(work, { recursive: true, force: true });
  });

  const file = (name: string, text: string): string => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads a YAML file: its rules first, a built-in rule it names replaced, the other built-in rules after', async function () {
    const path = file(
      'policy.yaml',
      `# custom
rules:
  - id: no-netcat
    decision: deny
    severity: high
    description: netcat
    match:
      commands: [nc, ncat]
  - id: ptrace
    decision: kill
    mode: detect
    reason: tracing is watched, not stopped
    match: { event_types: [ptrace] }
`,
    );
    const engine = await loadPolicyFile(path);
    assert.equal(engine.policy.source, path);
    assert.deepEqual(
      engine.policy.rules.map((rule) => rule.id),
      [
        'no-netcat',
        'ptrace',
        'metadata_ip',
        'secret_path',
        'host_resolver',
        'private_cidr',
        'privilege_escalation',
      ],
    );
    assert.deepEqual(engine.policy.rules[0], {
      id: 'no-netcat',
      description: 'netcat',
      decision: 'deny',
      severity: 'high',
      mode: 'enforce',
      reason: 'netcat',
      match: [{ commands: ['nc', 'ncat'] }],
    });
    assert.deepEqual(engine.evaluate({ event_type: 'ptrace' }).advisory, {
      rule_id: 'ptrace',
      decision: 'kill',
      reason: 'tracing is watched, not stopped',
    });
  });

  it('reads a JSON file, and leaves the built-in rules out when it says so', async function () {
    const path = file(
      'policy.json',
      JSON.stringify({
        include_default_rules: false,
        rules: [
          {
            id: 'r1',
            decision: 'quarantine',
            match: [{ paths: ['/srv/**'] }, { dst_ips: ['203.0.113.0/24'] }],
          },
        ],
      }),
    );
    const engine = await loadPolicyFile(path);
    assert.deepEqual(
      engine.policy.rules.map((rule) => [rule.id, rule.severity, rule.reason]),
      [['r1', 'medium', 'rule r1 matched']],
    );
    assert.equal(engine.evaluate({ event_type: 'ptrace' }).rule_id, 'default_allow');
    assert.equal(
      engine.evaluate({ event_type: 'network_connect', dst_ip: '203.0.113.9' }).decision,
      'quarantine',
    );
    assert.equal(defaultRules.length, 6, 'the built-in rules are untouched');
  });

  it('refuses each kind of mistake with a message naming the rule and the field', async function () {
    const cases: [string, string, RegExp][] = [
      ['a.txt', 'rules: []', /the file name must end in \.json, \.yaml or \.yml/],
      ['bad.yaml', 'rules: [\n  - id: a\n    decision: deny\n   match: x', /not valid YAML/],
      ['dup-key.yaml', 'rules: []\nrules: []', /not valid YAML: .*[Mm]ap keys must be unique/],
      ['bad.json', '{"rules": [', /not valid JSON/],
      ['list.json', '[]', /the file must be an object, not \[\]/],
      [
        'typo.json',
        '{"rulez": []}',
        /the file: unknown field "rulez" \(known: include_default_rules, rules, unreadable_commands, hooks\)/,
      ],
      [
        'include.json',
        '{"include_default_rules": "yes"}',
        /include_default_rules must be true or false, not "yes"/,
      ],
      ['rules.json', '{"rules": {}}', /rules must be a list of rules/],
      [
        'id.json',
        '{"rules": [{"id": "has space", "decision": "deny", "match": {"commands": ["x"]}}]}',
        /rules\[0\]: id must be 1 to 64 letters/,
      ],
      [
        'reserved.json',
        '{"rules": [{"id": "default_allow", "decision": "deny", "match": {"commands": ["x"]}}]}',
        /rules\[0\] \(default_allow\): the id default_allow is reserved/,
      ],
      [
        'decision.json',
        '{"rules": [{"id": "a", "decision": "block", "match": {"commands": ["x"]}}]}',
        /rules\[0\] \(a\): decision must be one of allow, deny, quarantine, kill, not "block"/,
      ],
      [
        'severity.json',
        '{"rules": [{"id": "a", "decision": "deny", "severity": 3, "match": {"commands": ["x"]}}]}',
        /rules\[0\] \(a\): severity must be one of info, low, medium, high, critical, not 3/,
      ],
      [
        'mode.json',
        '{"rules": [{"id": "a", "decision": "deny", "mode": "audit", "match": {"commands": ["x"]}}]}',
        /rules\[0\] \(a\): mode must be one of enforce, detect/,
      ],
      ['nomatch.json', '{"rules": [{"id": "a", "decision": "deny"}]}', /rules\[0\] \(a\): match is missing/],
      [
        'emptymatch.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": []}]}',
        /rules\[0\] \(a\): match is an empty list/,
      ],
      [
        'nocond.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {}}]}',
        /rules\[0\] \(a\): match: a match block needs at least one condition/,
      ],
      [
        'field.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": [{"command": ["x"]}]}]}',
        /rules\[0\] \(a\): match\[0\]: unknown field "command"/,
      ],
      [
        'type.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"event_types": ["exec"]}}]}',
        /rules\[0\] \(a\): match\.event_types\[0\]: "exec" is not an event type \(execve, /,
      ],
      [
        'cidr.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"dst_ips": ["10.0.0.0/8", "10.0.0.0/33"]}}]}',
        /rule "a": "10\.0\.0\.0\/33" has a prefix length past 32/,
      ],
      [
        'ports.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"dst_ports": [53, 65536]}}]}',
        /rules\[0\] \(a\): match\.dst_ports must be a non-empty list of ports \(integers from 0 to 65535\)/,
      ],
      [
        'resolvers.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"host_resolvers": "yes"}}]}',
        /rules\[0\] \(a\): match\.host_resolvers must be true or false, not "yes"/,
      ],
      [
        'deep-cidr.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"host_resolvers": true, "dst_ips": ["10.0.0.0/33"]}}]}',
        /rule "a": "10\.0\.0\.0\/33" has a prefix length past 32/,
      ],
      [
        'ids.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"target_ids": [-1]}}]}',
        /rules\[0\] \(a\): match\.target_ids must be a non-empty list of user or group ids/,
      ],
      [
        'texts.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"paths": "/etc"}}]}',
        /rules\[0\] \(a\): match\.paths must be a non-empty list of non-empty strings, not "\/etc"/,
      ],
      [
        'twice.json',
        '{"rules": [{"id": "a", "decision": "deny", "match": {"commands": ["x"]}}, {"id": "a", "decision": "kill", "match": {"commands": ["y"]}}]}',
        /rule id "a" is given twice/,
      ],
    ];
    for (const [name, text, message] of cases) {
      const path = file(name, text);
      await assert.rejects(loadPolicyFile(path), (error: Error) => {
        assert.ok(error instanceof PolicyFileError, `${name}: ${String(error)}`);
        assert.match(error.message, message, name);
        assert.ok(error.message.startsWith(`policy ${path}: `), `${name}: the message names the file`);
        return true;
      });
    }
    await assert.rejects(
      loadPolicyFile(join(work, 'absent.yaml')),
      /policy .*absent\.yaml: cannot be read: ENOENT/,
    );
  });

  it('refuses a file over 1 MiB rather than read it', async function () {
    const path = file('huge.json', `{"rules": [], "x": "${'a'.repeat(1024 * 1024)}"}`);
    await assert.rejects(loadPolicyFile(path), /the file holds \d+ bytes, more than 1048576/);
  });

  it('refuses an alias bomb and files nested past any policy, as a message, and the daemon exits 2 without a stack', async function () {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const name = String.fromCharCode(97 + level);
      const previous = String.fromCharCode(96 + level);
      bomb.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    bomb.push('rules: *i');
    const cases: [string, string, RegExp][] = [
      ['bomb.yaml', bomb.join('\n'), /aliases expand past 100 nodes/],
      [
        'deep.json',
        `{"rules": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
        /nests 9 levels deep; a policy needs at most 8/,
      ],
      [
        'nine.json',
        `{"rules": [{"id": "r", "decision": "deny", "match": [{"commands": [[[[["x"]]]]]}]}]}`,
        /nests 9 levels/,
      ],
      [
        'deep.yaml',
        `rules: ${'['.repeat(20_000)}${']'.repeat(20_000)}`,
        /nested too deep to parse \(1:\d+\)/,
      ],
    ];
    for (const [name, text, message] of cases) {
      const path = file(name, text);
      await assert.rejects(loadPolicyFile(path), (error: Error) => {
        assert.ok(error instanceof PolicyFileError, `${name}: ${error.stack ?? ''}`);
        assert.match(error.message, message, name);
        return true;
      });
    }
    const started = await runDaemonCli(join(work, 'data'), ['--policy', join(work, 'bomb.yaml')]);
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, /^provd: \S+: policy .*bomb\.yaml: its aliases expand past 100 nodes/m);
    assert.doesNotMatch(started.stderr, /^\s+at /m, 'no stack trace');
  });
});
