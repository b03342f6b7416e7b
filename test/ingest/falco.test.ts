import assert from 'node:assert/strict';
import { missingTime } from '../../src/ingest/received-time.js';
import { parseFalcoLine } from '../../src/ingest/falco.js';
import { isLineRejection, type LineRejection } from '../../src/ingest/line-rejection.js';
import type { ParsedEvent } from '../../src/model/event.js';

const time = '2026-01-01T00:00:04.000000001Z';

function alert(
  fields: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { time, rule: 'r', priority: 'Warning', output_fields: { 'proc.pid': 42, ...fields }, ...extra };
}

function parsed(value: Record<string, unknown>, line?: string): ParsedEvent {
  const result = parseFalcoLine(value, line);
  if (isLineRejection(result)) assert.fail(`rejected: ${result.code} ${result.message}`);
  return result;
}

function rejected(value: Record<string, unknown>, line?: string): LineRejection {
  const result = parseFalcoLine(value, line);
  if (!isLineRejection(result)) assert.fail(`accepted as ${result.type}`);
  return result;
}

describe('parseFalcoLine', function () {
  it('maps an execve alert with its identity fields, rule, priority and tags', function () {
    const event = parsed(
      alert(
        {
          'evt.type': 'execve',
          'proc.ppid': 41,
          'user.uid': 0,
          'user.loginuid': 1000,
          'proc.name': 'sh',
          'proc.exepath': '/bin/sh',
          'proc.cmdline': 'sh -c id',
          'container.id': 'abc123',
        },
        { tags: ['shell', 'mitre_execution'], hostname: 'node-1' },
      ),
    );
    assert.deepEqual(event, {
      type: 'execve',
      source: 'falco',
      time,
      timeNs: 1_767_225_604_000_000_001n,
      pid: 42,
      tgid: null,
      ppid: 41,
      uid: 0,
      loginUid: 1000,
      comm: 'sh',
      cgroupId: null,
      containerId: 'abc123',
      attrs: {
        rule: 'r',
        priority: 'Warning',
        hostname: 'node-1',
        tags: ['shell', 'mitre_execution'],
        command: 'sh -c id',
        path: '/bin/sh',
        output_fields: {
          'proc.pid': 42,
          'evt.type': 'execve',
          'proc.ppid': 41,
          'user.uid': 0,
          'user.loginuid': 1000,
          'proc.name': 'sh',
          'proc.exepath': '/bin/sh',
          'proc.cmdline': 'sh -c id',
          'container.id': 'abc123',
        },
      },
    });
    assert.equal(parsed(alert({ 'evt.type': 'execveat' })).type, 'execve');
  });

  it('keeps user.loginuid as the login uid, -1 (unset) and 4294967295 as none, and refuses a text', function () {
    const loginUid = (value: unknown): number | null =>
      parsed(alert({ 'evt.type': 'execve', 'user.loginuid': value })).loginUid;
    assert.deepEqual(
      [loginUid(0), loginUid(1000), loginUid(-1), loginUid(4294967295)],
      [0, 1000, null, null],
    );
    assert.equal(parsed(alert({ 'evt.type': 'execve' })).loginUid, null);
    assert.match(
      rejected(alert({ 'evt.type': 'execve', 'user.loginuid': 'root' })).message,
      /user\.loginuid/,
    );
    assert.match(rejected(alert({ 'evt.type': 'execve', 'user.loginuid': -2 })).message, /user\.loginuid/);
  });

  it('treats container id "host" as no container', function () {
    assert.equal(parsed(alert({ 'evt.type': 'execve', 'container.id': 'host' })).containerId, null);
  });

  it('splits fd.rip into dst_ip and dst_port when it is ip:port', function () {
    const event = parsed(alert({ 'evt.type': 'connect', 'fd.rip': '169.254.169.254:80' }));
    assert.equal(event.type, 'network_connect');
    assert.equal(event.attrs.dst_ip, '169.254.169.254');
    assert.equal(event.attrs.dst_port, 80);
  });

  it('keeps a host name as dst_host when fd.rip is host:port', function () {
    const event = parsed(alert({ 'evt.type': 'connect', 'fd.rip': 'api.example.com:443' }));
    assert.equal(event.attrs.dst_ip, undefined);
    assert.equal(event.attrs.dst_host, 'api.example.com');
    assert.equal(event.attrs.dst_port, 443);
  });

  it('reads the destination from fd.rip + fd.rport, fd.sip + fd.sport and fd.name', function () {
    const ripPort = parsed(alert({ 'evt.type': 'connect', 'fd.rip': '10.0.0.5', 'fd.rport': 5432 }));
    assert.deepEqual([ripPort.attrs.dst_ip, ripPort.attrs.dst_port], ['10.0.0.5', 5432]);
    const sip = parsed(alert({ 'evt.type': 'connect', 'fd.sip': '2001:db8::1', 'fd.sport': '443' }));
    assert.deepEqual([sip.attrs.dst_ip, sip.attrs.dst_port], ['2001:db8::1', 443]);
    const name = parsed(alert({ 'evt.type': 'connect', 'fd.name': '172.17.0.2:51234->93.184.216.34:443' }));
    assert.deepEqual([name.attrs.dst_ip, name.attrs.dst_port], ['93.184.216.34', 443]);
    const bracket = parsed(alert({ 'evt.type': 'connect', 'fd.rip': '[fd00:ec2::254]:80' }));
    assert.deepEqual([bracket.attrs.dst_ip, bracket.attrs.dst_port], ['fd00:ec2::254', 80]);
  });

  it('says so when a connect alert prints no destination', function () {
    const bare = parsed(alert({ 'evt.type': 'connect', 'proc.name': 'nc' }));
    assert.deepEqual(
      [bare.type, bare.attrs.dst_ip, bare.attrs.no_destination],
      [
        'network_connect',
        undefined,
        'the producer sent no destination: the alert prints no fd.rip, fd.sip or fd.name',
      ],
    );
    const host = parsed(alert({ 'evt.type': 'connect', 'fd.rip': 'api.example.com:443' }));
    assert.equal(host.attrs.no_destination, undefined, 'a host name is a destination');
  });

  it('makes a read-only open file_open and an open with a write flag file_write', function () {
    const read = parsed(
      alert({ 'evt.type': 'openat', 'fd.name': '/etc/hosts', 'evt.arg.flags': 'O_RDONLY|O_CLOEXEC' }),
    );
    assert.equal(read.type, 'file_open');
    assert.equal(read.attrs.path, '/etc/hosts');
    assert.equal(read.attrs.flags, 'O_RDONLY|O_CLOEXEC');
    for (const flags of [
      'O_WRONLY',
      'O_RDWR',
      'O_WRONLY|O_CREAT|O_TRUNC',
      'O_RDONLY|O_CREAT',
      'O_APPEND|O_WRONLY',
      'O_TRUNC',
    ]) {
      assert.equal(
        parsed(alert({ 'evt.type': 'open', 'fd.name': '/a', 'evt.arg.flags': flags })).type,
        'file_write',
        flags,
      );
    }
    assert.equal(
      parsed(alert({ 'evt.type': 'openat2', 'fd.name': '/a', 'evt.is_open_write': true })).type,
      'file_write',
    );
    assert.equal(parsed(alert({ 'evt.type': 'creat', 'fd.name': '/a' })).type, 'file_write');
  });

  it('maps renames, unlinks, setuid, setgid and ptrace', function () {
    const rename = parsed(
      alert({ 'evt.type': 'renameat2', 'evt.arg.oldpath': '/a', 'evt.arg.newpath': '/b' }),
    );
    assert.deepEqual([rename.type, rename.attrs.path, rename.attrs.new_path], ['file_rename', '/a', '/b']);
    const unlink = parsed(alert({ 'evt.type': 'unlinkat', 'evt.arg.name': '/tmp/x' }));
    assert.deepEqual([unlink.type, unlink.attrs.path], ['file_unlink', '/tmp/x']);
    const setuid = parsed(alert({ 'evt.type': 'setuid', 'evt.arg.uid': '0(root)' }));
    assert.deepEqual([setuid.type, setuid.attrs.target_uid], ['setuid', 0]);
    const setgid = parsed(alert({ 'evt.type': 'setgid', 'evt.rawarg.gid': 0 }));
    assert.deepEqual([setgid.type, setgid.attrs.target_gid], ['setgid', 0]);
    const ptrace = parsed(
      alert({ 'evt.type': 'ptrace', 'evt.arg.request': 'PTRACE_ATTACH', 'evt.arg.pid': '4321' }),
    );
    assert.deepEqual(
      [ptrace.type, ptrace.attrs.request, ptrace.attrs.target_pid],
      ['ptrace', 'PTRACE_ATTACH', 4321],
    );
  });

  it('takes the exact nanoseconds of evt.time from the raw line when the alert has no time', function () {
    const line = '{"output_fields":{"evt.type":"execve","proc.pid":1,"evt.time": 1767225604000000123}}';
    const event = parsed(JSON.parse(line) as Record<string, unknown>, line);
    assert.equal(event.timeNs, 1_767_225_604_000_000_123n);
    assert.equal(event.time, '2026-01-01T00:00:04.000000123Z');
  });

  it('leaves the time missing for normalize to stamp when neither time nor integer evt.time is present', function () {
    for (const fields of [{}, { 'evt.time': '12:00:01.000000000' }, { 'evt.time': 1.5 }]) {
      const value = { output_fields: { 'evt.type': 'connect', 'fd.rip': 'api.example.com:443', ...fields } };
      const event = parseFalcoLine(value, JSON.stringify(value));
      assert.ok(!isLineRejection(event));
      assert.equal(event.time, missingTime);
    }
  });

  it('rejects as invalid_time when an integer evt.time is an instant the store cannot hold', function () {
    // 2262-01-01T00:00:00Z and 2262-04-11T23:47:16.854775808Z: past 2261, and past a signed 64-bit count
    for (const ns of ['9214646400000000000', '9223372036854775808', '99999999999999999999']) {
      const line = `{"output_fields":{"evt.type":"execve","proc.pid":1,"evt.time": ${ns}}}`;
      const result = rejected(JSON.parse(line) as Record<string, unknown>, line);
      assert.equal(result.code, 'invalid_time', ns);
      assert.match(result.message, /evt\.time.*1678\.\.2261/, ns);
    }
  });

  it('rejects as invalid_time when time is not RFC 3339, as in a published blog typo', function () {
    assert.equal(rejected(alert({}, { time: '2021-04-13T20:58:00.746609046Z+2' })).code, 'invalid_time');
    assert.equal(
      rejected(alert({ 'evt.type': 'execve' }, { time: '2026-01-01 00:00' })).code,
      'invalid_time',
    );
  });

  it('keeps an alert of a syscall no type covers as generic, with evt.type as its kind', function () {
    const event = parsed(alert({ 'evt.type': 'mmap', 'fd.name': '/lib/x.so' }));
    assert.equal(event.type, 'generic');
    assert.equal(event.attrs.kind, 'mmap');
    assert.equal((event.attrs.output_fields as Record<string, unknown>)['fd.name'], '/lib/x.so');
  });

  it('infers the type from the fields present when evt.type is missing, and says so', function () {
    const shell = parsed(alert({ 'proc.cmdline': 'bash', 'proc.pname': 'runc', 'container.name': 'web' }));
    assert.equal(shell.type, 'execve');
    assert.equal(shell.attrs.command, 'bash');
    assert.equal(shell.attrs.type_inferred_from, 'proc.cmdline');
    assert.equal((shell.attrs.output_fields as Record<string, unknown>)['proc.pname'], 'runc');
    const read = parsed(alert({ 'fd.name': '/etc/shadow', 'proc.cmdline': 'cat /etc/shadow' }));
    assert.equal(read.type, 'file_open');
    assert.equal(read.attrs.path, '/etc/shadow');
    assert.equal(read.attrs.type_inferred_from, 'fd.name');
    const net = parsed(alert({ 'fd.name': '10.0.0.2:40000->1.2.3.4:4444', 'fd.type': 'ipv4' }));
    assert.deepEqual([net.type, net.attrs.dst_ip, net.attrs.dst_port], ['network_connect', '1.2.3.4', 4444]);
    const setuid = parsed(alert({ 'evt.arg.uid': 'root', 'proc.cmdline': 'event_generator ' }));
    assert.deepEqual(
      [setuid.type, setuid.attrs.target_uid, setuid.attrs.type_inferred_from],
      ['setuid', 0, 'evt.arg.uid'],
    );
    const bare = parsed({ time, rule: 'r', output_fields: {} });
    assert.deepEqual([bare.type, bare.attrs.kind], ['generic', 'falco:syscall']);
    const noFields = parsed({ time, rule: 'r' });
    assert.equal(noFields.type, 'generic');
  });

  it('keeps alerts of plugin sources as generic with their source', function () {
    const event = parsed(
      alert(
        { 'ka.user.name': 'admin', 'ka.verb': 'create' },
        { source: 'k8s_audit', rule: 'Create Privileged Pod' },
      ),
    );
    assert.equal(event.type, 'generic');
    assert.equal(event.attrs.falco_source, 'k8s_audit');
    assert.equal(event.attrs.kind, 'falco:k8s_audit');
    assert.equal((event.attrs.output_fields as Record<string, unknown>)['ka.user.name'], 'admin');
  });

  it("records Falco's syscall event drop alert as capture_loss with the drops it counted", function () {
    const event = parsed(
      alert(
        { n_drops: '12', n_evts: '900' },
        { rule: 'Falco internal: syscall event drop', priority: 'Debug' },
      ),
    );
    assert.equal(event.type, 'capture_loss');
    assert.equal(event.attrs.loss, 'syscall_drop');
    assert.equal(event.attrs.lost_events, 12);
  });

  it('keeps whether the syscall failed, and a failed open of a secret path is no secret read', function () {
    const failed = parsed(
      alert({ 'evt.type': 'openat', 'fd.name': '/etc/shadow', 'evt.res': 'ENOENT', 'evt.failed': true }),
    );
    assert.deepEqual([failed.attrs.result, failed.attrs.failed], ['ENOENT', true]);
    const ok = parsed(alert({ 'evt.type': 'openat', 'fd.name': '/etc/hosts', 'evt.res': 'SUCCESS' }));
    assert.equal(ok.attrs.failed, false);
  });

  it("reads gRPC's {seconds, nanos} time form", function () {
    const event = parsed(alert({ 'evt.type': 'execve' }, { time: { seconds: 1767225604, nanos: 5 } }));
    assert.equal(event.time, '2026-01-01T00:00:04.000000005Z');
    assert.equal(event.timeNs, 1_767_225_604_000_000_005n);
    assert.equal(rejected(alert({}, { time: { seconds: 'x' } })).code, 'wrong_type');
    assert.equal(rejected(alert({}, { time: { seconds: 99999999999 } })).code, 'invalid_time');
  });

  it('rejects as missing_field only a line that is no alert: no output_fields and no rule', function () {
    assert.equal(rejected({ time, output: 'x' }).code, 'missing_field');
  });

  it('rejects as wrong_type naming the field when a value has the wrong type', function () {
    const cases: [Record<string, unknown>, RegExp][] = [
      [alert({ 'evt.type': 'execve', 'proc.pid': '42' }), /proc\.pid/],
      [alert({ 'evt.type': 'execve', 'proc.ppid': -1 }), /proc\.ppid/],
      [alert({ 'evt.type': 'execve', 'user.uid': 'root' }), /user\.uid/],
      [alert({ 'evt.type': 'execve', 'container.id': 5 }), /container\.id/],
      [alert({ 'evt.type': 'execve' }, { tags: 'a,b' }), /tags/],
      [alert({ 'evt.type': 'execve' }, { rule: 1 }), /rule/],
      [alert({ 'evt.type': 'connect', 'fd.rip': '1.2.3.4:99999' }), /fd\.rip/],
      [alert({ 'evt.type': 'connect', 'fd.rip': '1.2.3.4', 'fd.rport': 'http' }), /fd\.rport/],
      [alert({ 'evt.type': 'openat', 'fd.name': 5 }), /fd\.name/],
      [alert({ 'evt.type': 'execve', 'proc.cmdline': ['sh'] }), /proc\.cmdline/],
      [{ time, output_fields: [] }, /output_fields/],
    ];
    for (const [value, field] of cases) {
      const result = rejected(value);
      assert.equal(result.code, 'wrong_type', String(field));
      assert.match(result.message, field);
    }
  });
});
