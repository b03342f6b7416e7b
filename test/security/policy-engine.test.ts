import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { AddressSet, inetAton } from '../../src/security/policy/address-set.js';
import { defaultPolicy } from '../../src/security/policy/default-policy.js';
import type { PolicySubject } from '../../src/security/policy/policy.js';
import { PolicyEngine } from '../../src/security/policy/policy-engine.js';
import { normalizedPath } from '../../src/security/policy/path-glob.js';

const engine = new PolicyEngine(defaultPolicy);
const decide = (subject: PolicySubject): [string, string] => {
  const decided = engine.evaluate(subject);
  return [decided.decision, decided.rule_id];
};

describe('the policy engine with the built-in policy (the contract table)', function () {
  it('answers each default rule with its decision, and default_allow for the rest', function () {
    const cases: [PolicySubject, [string, string]][] = [
      [{ event_type: 'network_connect', dst_ip: '169.254.169.254' }, ['quarantine', 'metadata_ip']],
      [{ event_type: 'metadata_ip', dst_ip: '169.254.170.2' }, ['quarantine', 'metadata_ip']],
      [
        { event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/latest/meta-data/'] },
        ['quarantine', 'metadata_ip'],
      ],
      [{ event_type: 'file_open', path: '/home/a/.aws/credentials' }, ['kill', 'secret_path']],
      [{ event_type: 'secret_path', path: '/etc/shadow' }, ['kill', 'secret_path']],
      [{ event_type: 'file_write', path: '/root/.ssh/id_ed25519' }, ['kill', 'secret_path']],
      [{ event_type: 'network_connect', dst_ip: '10.1.2.3' }, ['deny', 'private_cidr']],
      [{ event_type: 'network_connect', dst_ip: '172.31.255.255' }, ['deny', 'private_cidr']],
      [{ event_type: 'private_cidr', dst_ip: '192.168.77.1' }, ['deny', 'private_cidr']],
      [{ event_type: 'setuid', target_id: 0 }, ['quarantine', 'privilege_escalation']],
      [{ event_type: 'setgid', target_id: 0 }, ['quarantine', 'privilege_escalation']],
      [{ event_type: 'ptrace' }, ['quarantine', 'ptrace']],
      [{ event_type: 'setuid', target_id: 1000 }, ['allow', 'default_allow']],
      [{ event_type: 'network_connect', dst_ip: '172.32.0.1' }, ['allow', 'default_allow']],
      [{ event_type: 'file_open', path: '/usr/lib/python3/token.py' }, ['allow', 'default_allow']],
      [{ event_type: 'execve', command: 'ls', args: ['-l', '/tmp'] }, ['allow', 'default_allow']],
    ];
    for (const [subject, expected] of cases)
      assert.deepEqual(decide(subject), expected, JSON.stringify(subject));
  });

  it('is not fooled by another spelling of an address or a path', function () {
    const metadata: PolicySubject[] = [
      { event_type: 'network_connect', dst_ip: '::ffff:169.254.169.254' },
      { event_type: 'network_connect', dst_ip: '::ffff:a9fe:a9fe' },
      { event_type: 'execve', command: 'curl', args: ['-s', 'http://2852039166/latest'] },
      { event_type: 'execve', command: 'curl', args: ['http://0xa9fea9fe/'] },
      { event_type: 'execve', command: 'curl', args: ['http://0251.0376.0251.0376/'] },
      { event_type: 'execve', command: 'curl', args: ['http://169.254.43518/'] },
      { event_type: 'execve', command: 'nc', args: ['169.254.169.254:80'] },
      { event_type: 'execve', command: 'curl', args: ['http://[fd00:ec2::254]/latest'] },
      { event_type: 'execve', command: 'wget', args: ['--header=x', 'user@169.254.169.254'] },
    ];
    for (const subject of metadata)
      assert.deepEqual(decide(subject), ['quarantine', 'metadata_ip'], JSON.stringify(subject));
    assert.deepEqual(decide({ event_type: 'network_connect', dst_ip: '::ffff:10.0.0.1' }), [
      'deny',
      'private_cidr',
    ]);
    assert.deepEqual(decide({ event_type: 'file_open', path: '/etc/ssh/../shadow' }), [
      'kill',
      'secret_path',
    ]);
    assert.deepEqual(decide({ event_type: 'file_open', path: '/etc//shadow' }), ['kill', 'secret_path']);
    // an address that only looks alike is not one
    for (const arg of ['169.254.169.2540', 'x169.254.169.254y', '1692541692540'])
      assert.deepEqual(
        decide({ event_type: 'execve', command: 'echo', args: [arg] }),
        ['allow', 'default_allow'],
        arg,
      );
  });

  it('resolves every path its globs compare exactly as posix.normalize does, dots and slashes included', function () {
    // every path of up to three segments from these, with and without a leading and a trailing slash
    const segments = ['', '.', '..', '...', '.ssh', '..a', 'a.', 'a..', 'etc', 'shadow'];
    let checked = 0;
    for (const a of segments)
      for (const b of segments)
        for (const c of segments)
          for (const lead of ['', '/'])
            for (const trail of ['', '/']) {
              const path = `${lead}${[a, b, c].join('/')}${trail}`;
              assert.equal(normalizedPath(path), posix.normalize(path), JSON.stringify(path));
              checked++;
            }
    assert.equal(checked, 4000);
    assert.equal(normalizedPath(''), null);
    assert.equal(normalizedPath(null), null);
  });

  it('reads IPv4 addresses as inet_aton does, and refuses what it would refuse', function () {
    const cases: [string, number][] = [
      ['169.254.169.254', 0xa9fea9fe],
      ['2852039166', 0xa9fea9fe],
      ['0xA9FEA9FE', 0xa9fea9fe],
      ['0251.0376.0251.0376', 0xa9fea9fe],
      ['169.16689662', 0xa9fea9fe],
      ['127.1', 0x7f000001],
      ['0', 0],
      ['256.1.1.1', -1],
      ['1.2.3.4.5', -1],
      ['4294967296', -1],
      ['08', -1],
      ['', -1],
      ['1..2', -1],
    ];
    for (const [text, value] of cases) assert.equal(inetAton(text), value, text);
  });

  it('matches CIDR blocks of both families, and refuses a block it cannot read', function () {
    const set = AddressSet.parse(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
    assert.deepEqual(
      ['10.255.0.1', '11.0.0.1', 'fd12::1', 'fe80::1', '192.0.2.7', '192.0.2.8', 'not an ip', ''].map((ip) =>
        set.has(ip),
      ),
      [true, false, true, false, true, false, false, false],
    );
    for (const [entry, message] of [
      ['10.0.0.0/33', /prefix length past 32/],
      ['10.0.0.0/x', /prefix length that is not a number/],
      ['example.com', /is not an IPv4 or IPv6 address or CIDR block/],
      ['::/129', /prefix length past 128/],
    ] as const)
      assert.throws(() => AddressSet.parse([entry]), message);
  });

  it('answers allow with an advisory for a detect-only rule, and the first matching rule decides', function () {
    const custom = new PolicyEngine({
      source: 'test',
      rules: [
        {
          id: 'watch-netcat',
          description: '',
          decision: 'kill',
          severity: 'high',
          mode: 'detect',
          reason: 'netcat opens raw sockets',
          match: [{ commands: ['nc', 'ncat'] }],
        },
        {
          id: 'no-home-writes',
          description: '',
          decision: 'deny',
          severity: 'low',
          mode: 'enforce',
          reason: 'writes under /home',
          match: [{ event_types: ['file_write'], paths: ['/home/**'] }],
        },
        ...defaultPolicy.rules,
      ],
    });
    assert.deepEqual(
      custom.evaluate({ event_type: 'execve', command: '/usr/bin/nc', args: ['10.0.0.1', '80'] }),
      {
        decision: 'allow',
        rule_id: 'default_allow',
        reason: 'detect-only rule watch-netcat matched; allowed',
        severity: 'info',
        advisory: { rule_id: 'watch-netcat', decision: 'kill', reason: 'netcat opens raw sockets' },
      },
    );
    assert.equal(
      custom.evaluate({ event_type: 'file_write', path: '/home/a/notes.txt' }).rule_id,
      'no-home-writes',
    );
    // the write rule comes first: it decides, though secret_path matches too
    assert.equal(
      custom.evaluate({ event_type: 'file_write', path: '/home/a/.aws/credentials' }).rule_id,
      'no-home-writes',
    );
    assert.equal(
      custom.evaluate({ event_type: 'file_open', path: '/home/a/notes.txt' }).rule_id,
      'default_allow',
    );
    assert.equal(custom.evaluate({ event_type: 'file_write', path: '/tmp/x' }).rule_id, 'default_allow');
  });

  it('refuses a rule whose match block has no condition, naming the rule', function () {
    assert.throws(
      () =>
        new PolicyEngine({
          source: 'test',
          rules: [
            {
              id: 'empty',
              description: '',
              decision: 'deny',
              severity: 'low',
              mode: 'enforce',
              reason: '',
              match: [{}],
            },
          ],
        }),
      /rule "empty": a match block with no condition would match everything/,
    );
  });
});
