import assert from 'node:assert/strict';
import { missingTime } from '../../src/ingest/received-time.js';
import { isLineRejection, type LineRejection } from '../../src/ingest/line-rejection.js';
import { parseTetragonLine } from '../../src/ingest/tetragon.js';
import type { ParsedEvent } from '../../src/model/event.js';

const time = '2026-01-01T00:00:00.123456789Z';
const proc = {
  exec_id: 'ZXhlYzE=',
  pid: 100,
  uid: 1000,
  cwd: '/work',
  binary: '/usr/bin/python3',
  arguments: 'train.py --epochs 3',
  parent_exec_id: 'cGFyZW50',
  docker: '0123456789abcdef0123456',
  pod: { namespace: 'ml', name: 'trainer-0', container: { id: 'containerd://0123456789abcdef' } },
};

function kprobe(functionName: string, args: unknown[]): Record<string, unknown> {
  return { process_kprobe: { process: proc, parent: { pid: 99 }, function_name: functionName, args }, time };
}

function parsed(value: Record<string, unknown>): ParsedEvent {
  const result = parseTetragonLine(value);
  if (isLineRejection(result)) assert.fail(`rejected: ${result.code} ${result.message}`);
  return result;
}

function rejected(value: Record<string, unknown>): LineRejection {
  const result = parseTetragonLine(value);
  if (!isLineRejection(result)) assert.fail(`accepted as ${result.type}`);
  return result;
}

describe('parseTetragonLine', function () {
  it('keeps the process auid as the login uid, 4294967295 (unset) as none, and refuses a text', function () {
    const loginUid = (auid: unknown): number | null =>
      parsed({ process_exec: { process: { ...proc, auid } }, time }).loginUid;
    assert.deepEqual([loginUid(0), loginUid(1000), loginUid(4294967295)], [0, 1000, null]);
    const refused = rejected({ process_exec: { process: { ...proc, auid: 'root' } }, time });
    assert.match(refused.message, /process_exec\.process\.auid/);
  });

  it('maps process_exec onto execve with the process fields', function () {
    const event = parsed({ process_exec: { process: proc, parent: { pid: 99 } }, node_name: 'n1', time });
    assert.equal(event.type, 'execve');
    assert.equal(event.source, 'tetragon');
    assert.equal(event.time, time);
    assert.equal(event.timeNs, 1_767_225_600_123_456_789n);
    assert.equal(event.pid, 100);
    assert.equal(event.ppid, 99);
    assert.equal(event.uid, 1000);
    assert.equal(event.loginUid, null); // proc sends no auid
    assert.equal(event.comm, 'python3');
    assert.equal(event.containerId, '0123456789abcdef');
    assert.deepEqual(event.attrs, {
      path: '/usr/bin/python3',
      arguments: 'train.py --epochs 3',
      command: '/usr/bin/python3 train.py --epochs 3',
      argv: ['/usr/bin/python3', 'train.py', '--epochs', '3'],
      cwd: '/work',
      exec_id: 'ZXhlYzE=',
      parent_exec_id: 'cGFyZW50',
      pod_namespace: 'ml',
      pod_name: 'trainer-0',
      node_name: 'n1',
    });
  });

  it('takes the docker field as container id when the process has no pod', function () {
    const event = parsed({ process_exec: { process: { ...proc, pod: undefined } }, time });
    assert.equal(event.containerId, '0123456789abcdef0123456');
    assert.equal(event.ppid, null);
  });

  it('maps process_exit onto process_exit with status and signal', function () {
    const event = parsed({ process_exit: { process: proc, status: 137, signal: 'SIGKILL' }, time });
    assert.equal(event.type, 'process_exit');
    assert.equal(event.attrs.exit_code, 137);
    assert.equal(event.attrs.signal, 'SIGKILL');
  });

  it('maps kprobe write calls onto file_write with path and byte count', function () {
    const args = [{ file_arg: { path: '/work/out.txt' } }, { bytes_arg: 'aGVsbG8=' }, { size_arg: '5' }];
    for (const name of ['__x64_sys_write', '__arm64_sys_pwrite64', 'vfs_write', 'sys_writev']) {
      const event = parsed(kprobe(name, args));
      assert.equal(event.type, 'file_write', name);
      assert.equal(event.attrs.path, '/work/out.txt');
      assert.equal(event.attrs.bytes, 5);
      assert.equal(event.attrs.function_name, name);
      assert.equal(event.attrs.binary, '/usr/bin/python3');
    }
    assert.equal(parsed(kprobe('vfs_write', [{ bytes_arg: 'aGVsbG8=' }])).attrs.bytes, 5);
  });

  it('maps kprobe open calls onto file_open with the path from file_arg or path_arg', function () {
    for (const name of ['__x64_sys_openat', 'fd_install', 'security_file_open']) {
      assert.equal(parsed(kprobe(name, [{ file_arg: { path: '/etc/hosts' } }])).type, 'file_open', name);
    }
    assert.equal(
      parsed(kprobe('security_file_open', [{ path_arg: { path: '/etc/hosts' } }])).attrs.path,
      '/etc/hosts',
    );
    assert.equal(
      parsed(kprobe('__x64_sys_openat', [{ int_arg: -100 }, { string_arg: 'a.txt' }])).attrs.path,
      'a.txt',
    );
  });

  it('refines security_file_permission by its mask when MAY_WRITE is set', function () {
    const read = parsed(kprobe('security_file_permission', [{ file_arg: { path: '/a' } }, { int_arg: 4 }]));
    const write = parsed(kprobe('security_file_permission', [{ file_arg: { path: '/a' } }, { int_arg: 2 }]));
    assert.equal(read.type, 'file_open');
    assert.equal(write.type, 'file_write');
  });

  it('maps unlink and rename calls with both paths of a rename', function () {
    assert.equal(
      parsed(kprobe('__x64_sys_unlinkat', [{ int_arg: -100 }, { string_arg: '/tmp/x' }])).type,
      'file_unlink',
    );
    const rename = parsed(
      kprobe('security_path_rename', [{ path_arg: { path: '/a' } }, { path_arg: { path: '/b' } }]),
    );
    assert.equal(rename.type, 'file_rename');
    assert.equal(rename.attrs.path, '/a');
    assert.equal(rename.attrs.new_path, '/b');
  });

  it('maps tcp_connect and connect onto network_connect with the socket destination', function () {
    const sock = {
      family: 'AF_INET',
      type: 'SOCK_STREAM',
      protocol: 'IPPROTO_TCP',
      saddr: '10.0.0.2',
      daddr: '1.1.1.1',
      sport: 40000,
      dport: 443,
    };
    const event = parsed(kprobe('tcp_connect', [{ sock_arg: sock }]));
    assert.equal(event.type, 'network_connect');
    assert.equal(event.attrs.dst_ip, '1.1.1.1');
    assert.equal(event.attrs.dst_port, 443);
    assert.equal(event.attrs.src_ip, '10.0.0.2');
    const viaSockaddr = parsed(
      kprobe('__x64_sys_connect', [
        { int_arg: 3 },
        { sockaddr_arg: { family: 'AF_INET', addr: '169.254.169.254', port: 80 } },
      ]),
    );
    assert.equal(viaSockaddr.type, 'network_connect');
    assert.equal(viaSockaddr.attrs.dst_ip, '169.254.169.254');
    assert.equal(viaSockaddr.attrs.dst_port, 80);
  });

  it('maps listen hooks onto network_listen with the address listened on, never a destination', function () {
    const sock = { family: 'AF_INET', saddr: '0.0.0.0', daddr: '0.0.0.0', sport: 58000, dport: 0 };
    for (const name of ['inet_csk_listen_start', 'inet_listen', '__x64_sys_listen']) {
      const event = parsed(kprobe(name, [{ sock_arg: sock }, { int_arg: 128 }]));
      assert.deepEqual(
        [event.type, event.attrs.src_ip, event.attrs.src_port, event.attrs.dst_ip, event.attrs.dst_port],
        ['network_listen', '0.0.0.0', 58000, undefined, undefined],
        name,
      );
    }
    const lsm = parsed({
      process_lsm: {
        process: proc,
        function_name: 'socket_listen',
        args: [{ sock_arg: { ...sock, sport: 22 } }],
      },
      time,
    });
    assert.deepEqual([lsm.type, lsm.attrs.src_port, lsm.attrs.dst_port], ['network_listen', 22, undefined]);
    const odd = parsed(kprobe('inet_csk_listen_start', [{ sock_arg: { family: '26977', saddr: '<nil>' } }]));
    assert.match(String(odd.attrs.unreadable), /no IP address \(family 26977, address <nil>\)/);
    assert.equal(odd.attrs.src_ip, undefined);
  });

  it('says so when a connect hook, or an older process_connect, carries no destination', function () {
    for (const args of [
      undefined,
      null,
      [],
      [{ int_arg: 3 }],
      [{ sock_arg: { family: 'AF_INET', sport: 1 } }],
    ]) {
      const event = parsed(kprobe('tcp_connect', args as unknown[]));
      assert.deepEqual(
        [event.type, event.attrs.dst_ip, event.attrs.no_destination],
        [
          'network_connect',
          undefined,
          'the producer sent no destination: tcp_connect carries no sock or sockaddr argument with an address',
        ],
        JSON.stringify(args),
      );
    }
    const older = parsed({ process_connect: { process: proc, protocol: 'TCP' }, time });
    assert.equal(
      older.attrs.no_destination,
      'the producer sent no destination: process_connect carries no destination_ip',
    );
    // a socket the producer sent but provd cannot read says so in `unreadable`, not twice
    const unreadable = parsed(kprobe('tcp_connect', [{ sock_arg: { family: '26977', daddr: '<nil>' } }]));
    assert.deepEqual(
      [typeof unreadable.attrs.unreadable, unreadable.attrs.no_destination],
      ['string', undefined],
    );
    // other types never carry it
    assert.equal(parsed(kprobe('security_file_open', [])).attrs.no_destination, undefined);
  });

  it('maps setuid, setgid and ptrace kprobes with their targets', function () {
    assert.equal(parsed(kprobe('__x64_sys_setuid', [{ int_arg: 0 }])).attrs.target_uid, 0);
    assert.equal(parsed(kprobe('__x64_sys_setgid', [{ int_arg: 0 }])).attrs.target_gid, 0);
    const ptrace = parsed(kprobe('__x64_sys_ptrace', [{ long_arg: 16 }, { int_arg: 4321 }]));
    assert.equal(ptrace.type, 'ptrace');
    assert.equal(ptrace.attrs.request, 16);
    assert.equal(ptrace.attrs.target_pid, 4321);
  });

  it('maps the older process_connect onto network_connect', function () {
    const event = parsed({
      process_connect: { process: proc, destination_ip: '10.0.0.5', destination_port: 443, protocol: 'TCP' },
      time,
    });
    assert.equal(event.type, 'network_connect');
    assert.equal(event.attrs.dst_ip, '10.0.0.5');
    assert.equal(event.attrs.dst_port, 443);
  });

  it('keeps a kprobe of a function no type covers as generic, with its arguments as sent', function () {
    const args = [{ capability_arg: { value: 21, name: 'CAP_SYS_ADMIN' } }, { int_arg: 0 }];
    const event = parsed(kprobe('cap_capable', args));
    assert.equal(event.type, 'generic');
    assert.deepEqual([event.attrs.kind, event.attrs.function_name], ['process_kprobe', 'cap_capable']);
    assert.deepEqual(event.attrs.args, args);
    assert.equal(event.pid, 100);
  });

  it('maps credential, namespace, module and read kprobes onto their types', function () {
    // the effective ids decide: a task whose euid becomes 0 is root, whatever its real uid
    const credentials = { uid: 1000, gid: 1000, euid: 0, egid: 0 };
    const creds = parsed(kprobe('commit_creds', [{ process_credentials_arg: credentials }]));
    assert.deepEqual(
      [creds.type, creds.attrs.target_uid, creds.attrs.target_gid, creds.attrs.creds],
      ['credential_change', 0, 0, credentials],
    );
    const user = parsed(kprobe('commit_creds', [{ process_credentials_arg: { uid: 1000, gid: 1000 } }]));
    assert.deepEqual([user.attrs.target_uid, user.attrs.target_gid], [1000, 1000]);
    const setns = parsed(kprobe('__x64_sys_setns', [{ int_arg: 3 }, { int_arg: 1073741824 }]));
    assert.deepEqual([setns.type, setns.attrs.nstype], ['namespace_change', 1073741824]);
    const module = parsed(
      kprobe('do_init_module', [{ module_arg: { name: 'evil', tainted: ['TAINT_OOT_MODULE'] } }]),
    );
    assert.deepEqual([module.type, module.attrs.module], ['module_load', 'evil']);
    const read = parsed(kprobe('__x64_sys_read', [{ int_arg: 3 }, { size_arg: '64' }]));
    assert.deepEqual([read.type, read.attrs.bytes], ['file_read', 64]);
    const kernelRead = parsed(kprobe('security_kernel_read_file', [{ file_arg: { path: '/lib/m.ko' } }]));
    assert.deepEqual([kernelRead.type, kernelRead.attrs.path], ['file_read', '/lib/m.ko']);
  });

  it('maps LSM hooks and syscall tracepoints by their function, and keeps the rest generic', function () {
    const lsm = parsed({
      process_lsm: {
        process: proc,
        function_name: 'file_open',
        args: [{ file_arg: { path: '/etc/passwd' } }],
      },
      time,
    });
    assert.deepEqual([lsm.type, lsm.attrs.path], ['file_open', '/etc/passwd']);
    const tracepoint = parsed({
      process_tracepoint: {
        process: proc,
        subsys: 'syscalls',
        event: 'sys_enter_setuid',
        args: [{ long_arg: '0' }],
      },
      time,
    });
    assert.deepEqual([tracepoint.type, tracepoint.attrs.target_uid], ['setuid', 0]);
    const uprobe = parsed({ process_uprobe: { process: proc, path: '/bin/bash', symbol: 'readline' }, time });
    assert.deepEqual(
      [uprobe.type, uprobe.attrs.kind, uprobe.attrs.symbol],
      ['generic', 'process_uprobe', 'readline'],
    );
    const future = parsed({ process_newthing: { process: proc, detail: 1 }, time });
    assert.deepEqual(
      [future.type, future.attrs.kind, future.attrs.detail],
      ['generic', 'process_newthing', 1],
    );
  });

  it('records throttling and rate limits as capture_loss, with no process', function () {
    const start = parsed({ process_throttle: { type: 'THROTTLE_START', cgroup: 'pod-1' }, time });
    assert.deepEqual(
      [start.type, start.attrs.loss, start.attrs.cgroup, start.pid],
      ['capture_loss', 'throttle_start', 'pod-1', null],
    );
    const limit = parsed({ rate_limit_info: { number_of_dropped_process_events: '17' }, time });
    assert.deepEqual(
      [limit.type, limit.attrs.loss, limit.attrs.lost_events],
      ['capture_loss', 'rate_limit', 17],
    );
  });

  it('maps the older listen and accept events, and keeps close as generic', function () {
    const listen = parsed({
      process_listen: { process: proc, source_ip: '0.0.0.0', source_port: 8080 },
      time,
    });
    assert.deepEqual(
      [listen.type, listen.attrs.src_ip, listen.attrs.src_port],
      ['network_listen', '0.0.0.0', 8080],
    );
    assert.equal(parsed({ process_accept: { process: proc }, time }).type, 'network_accept');
    const close = parsed({ process_close: { process: proc, destination_ip: '1.2.3.4' }, time });
    assert.deepEqual(
      [close.type, close.attrs.kind, close.attrs.dst_ip],
      ['generic', 'process_close', '1.2.3.4'],
    );
  });

  it('gives an exit without status (protobuf omits a zero) exit code 0, unless a signal ended it', function () {
    assert.equal(parsed({ process_exit: { process: proc }, time }).attrs.exit_code, 0);
    const killed = parsed({ process_exit: { process: proc, signal: 'SIGKILL' }, time });
    assert.deepEqual([killed.attrs.exit_code, killed.attrs.signal], [undefined, 'SIGKILL']);
  });

  it('rejects as unknown_format when the line has no Tetragon event kind', function () {
    assert.equal(rejected({ event_type: 'execve', time }).code, 'unknown_format');
  });

  it('rejects as missing_field when the process is missing, and leaves a missing time to be stamped', function () {
    const noTime = parseTetragonLine({ process_exec: { process: proc } });
    assert.ok(!isLineRejection(noTime));
    assert.equal(noTime.time, missingTime);
    assert.equal(rejected({ process_exec: {}, time }).code, 'missing_field');
    assert.equal(rejected({ process_kprobe: { process: proc }, time }).code, 'missing_field');
  });

  it('rejects as invalid_time when the time is not RFC 3339', function () {
    assert.equal(
      rejected({ process_exec: { process: proc }, time: '2026-01-01T00:00:00' }).code,
      'invalid_time',
    );
  });

  it('rejects as wrong_type naming the field when a value has the wrong type', function () {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ process_exec: { process: { ...proc, pid: '100' } }, time }, /process_exec\.process\.pid/],
      [{ process_exec: { process: proc, parent: { pid: -1 } }, time }, /parent\.pid/],
      [{ process_exec: 'x', time }, /^process_exec/],
      [kprobe('vfs_write', [{ size_arg: 'many' }]), /size_arg/],
      [kprobe('tcp_connect', [{ sock_arg: { daddr: '1.1.1.1', dport: 70_000 } }]), /sock_arg/],
      [kprobe('vfs_write', [{ file_arg: { path: 7 } }]), /file_arg/],
      [{ process_connect: { process: proc, destination_port: '443' }, time }, /destination_port/],
    ];
    for (const [value, field] of cases) {
      const result = rejected(value);
      assert.equal(result.code, 'wrong_type', String(field));
      assert.match(result.message, field);
    }
  });
});
