import assert from 'node:assert/strict';
import { missingTime } from '../../src/ingest/received-time.js';
import { isLineRejection, type LineRejection } from '../../src/ingest/line-rejection.js';
import { parseNativeLine } from '../../src/ingest/native.js';
import type { ParsedEvent } from '../../src/model/event.js';

const base = { event_type: 'execve', timestamp: '2026-01-01T00:00:01Z' };

function parsed(value: Record<string, unknown>): ParsedEvent {
  const result = parseNativeLine(value);
  if (isLineRejection(result)) assert.fail(`rejected: ${result.code} ${result.message}`);
  return result;
}

function rejected(value: Record<string, unknown>): LineRejection {
  const result = parseNativeLine(value);
  if (!isLineRejection(result)) assert.fail(`accepted as ${result.type}`);
  return result;
}

describe('parseNativeLine', function () {
  it('maps the identity fields and keeps type-specific keys in attrs', function () {
    const event = parsed({
      source: 'agentprov_ebpf',
      pid: 4242,
      tgid: 4241,
      ppid: 4000,
      uid: 1000,
      login_uid: 1001,
      cgroup_id: '12345',
      container_id: 'c1',
      timestamp: '2026-01-01T00:00:01.5+01:00',
      comm: 'sh',
      event_type: 'execve',
      path: '/bin/sh',
      argv: ['sh', '-c', 'true'],
      cwd: '/tmp',
    });
    assert.deepEqual(event, {
      type: 'execve',
      source: 'native_jsonl',
      time: '2026-01-01T00:00:01.5+01:00',
      timeNs: 1_767_222_001_500_000_000n,
      pid: 4242,
      tgid: 4241,
      ppid: 4000,
      uid: 1000,
      loginUid: 1001,
      comm: 'sh',
      cgroupId: '12345',
      containerId: 'c1',
      attrs: { producer: 'agentprov_ebpf', path: '/bin/sh', argv: ['sh', '-c', 'true'], cwd: '/tmp' },
    });
  });

  it('reads the id an AgentProvenance sensor setuid/setgid asks for (its uid/gid) as the target', function () {
    // internal/sensor/sensor_linux.go of AgentProvenance: no caller uid, the new id as `uid` / `gid`
    const sensor = { source: 'agentprov_ebpf', pid: 4242, cgroup_id: '12345', timestamp: base.timestamp };
    const setuid = parsed({ ...sensor, event_type: 'setuid', uid: 0 });
    assert.deepEqual([setuid.uid, setuid.attrs.target_uid], [null, 0]);
    const setgid = parsed({ ...sensor, event_type: 'setgid', gid: 0 });
    assert.deepEqual([setgid.uid, setgid.attrs.target_gid, setgid.attrs.gid], [null, 0, 0]);
    // an explicit target wins; other producers' uid is always the caller's
    const both = parsed({ ...sensor, event_type: 'setuid', uid: 1000, target_uid: 0 });
    assert.deepEqual([both.uid, both.attrs.target_uid], [1000, 0]);
    const other = parsed({ ...base, event_type: 'setuid', uid: 0 });
    assert.deepEqual([other.uid, other.attrs.target_uid], [0, undefined]);
    const exec = parsed({ ...sensor, event_type: 'execve', uid: 0 });
    assert.deepEqual([exec.uid, exec.attrs.target_uid], [0, undefined]);
  });

  it('maps each alias onto its contract type', function () {
    const aliases = {
      exec: 'execve',
      exit: 'process_exit',
      open: 'file_open',
      openat: 'file_open',
      write: 'file_write',
      rename: 'file_rename',
      unlink: 'file_unlink',
      connect: 'network_connect',
      dns: 'dns_query',
      setuid: 'setuid',
      ptrace: 'ptrace',
      tls_read: 'tls_read',
    };
    for (const [alias, type] of Object.entries(aliases)) {
      assert.equal(parsed({ ...base, event_type: alias }).type, type, alias);
    }
  });

  it('accepts type and time as spellings of event_type and timestamp', function () {
    const event = parsed({ type: 'dns', time: '2026-01-01T00:00:00Z', query: 'example.com' });
    assert.equal(event.type, 'dns_query');
    assert.equal(event.time, '2026-01-01T00:00:00Z');
    assert.deepEqual(event.attrs, { query: 'example.com' });
  });

  it('writes an integer cgroup_id as a decimal string', function () {
    assert.equal(parsed({ ...base, cgroup_id: 9_007_199_254_740_991 }).cgroupId, '9007199254740991');
    assert.equal(parsed({ ...base, cgroup_id: 0 }).cgroupId, '0');
  });

  it('treats empty identity strings and nulls as absent', function () {
    const event = parsed({ ...base, container_id: '', cgroup_id: '', comm: '', pid: null });
    assert.equal(event.containerId, null);
    assert.equal(event.cgroupId, null);
    assert.equal(event.comm, null);
    assert.equal(event.pid, null);
  });

  it('keeps unknown keys in attrs, even one named __proto__', function () {
    const value = JSON.parse(`{"event_type":"file_open","timestamp":"2026-01-01T00:00:00Z","path":"a",
      "inode":7,"__proto__":{"path":"/etc/shadow"}}`) as Record<string, unknown>;
    const event = parsed(value);
    assert.equal(event.attrs.inode, 7);
    assert.equal(event.attrs.path, 'a');
    assert.equal(Object.getPrototypeOf(event.attrs), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(event.attrs, '__proto__')?.value, {
      path: '/etc/shadow',
    });
  });

  it('rejects as missing_field when the type is missing, and leaves a missing time to be stamped', function () {
    assert.deepEqual(rejected({ timestamp: '2026-01-01T00:00:00Z' }).code, 'missing_field');
    const noTime = parseNativeLine({ event_type: 'file_write', pid: 1, path: 'artifact.txt' });
    assert.ok(!isLineRejection(noTime));
    assert.equal(noTime.time, missingTime);
  });

  it('rejects as invalid_time when the time is not RFC 3339', function () {
    for (const timestamp of ['2026-01-01', '2026-01-01T00:00:00', '2023-02-29T00:00:00Z', 'yesterday']) {
      const result = rejected({ ...base, timestamp });
      assert.equal(result.code, 'invalid_time', timestamp);
      assert.match(result.message, /^timestamp/);
    }
  });

  it('rejects as unknown_type when the type is neither a contract type nor an alias', function () {
    const result = rejected({ ...base, event_type: 'resource_pressure' });
    assert.equal(result.code, 'unknown_type');
    assert.match(result.message, /resource_pressure/);
  });

  it('rejects as wrong_type naming the field when a value has the wrong type', function () {
    const cases: [Record<string, unknown>, string][] = [
      [{ pid: '4242' }, 'pid'],
      [{ pid: -1 }, 'pid'],
      [{ pid: 1.5 }, 'pid'],
      [{ uid: 4_294_967_296 }, 'uid'],
      [{ ppid: true }, 'ppid'],
      [{ comm: 7 }, 'comm'],
      [{ cgroup_id: -3 }, 'cgroup_id'],
      [{ cgroup_id: 2 ** 60 }, 'cgroup_id'],
      [{ container_id: {} }, 'container_id'],
      [{ dst_port: 65_536 }, 'dst_port'],
      [{ dst_port: '443' }, 'dst_port'],
      [{ dst_ip: 'example.com' }, 'dst_ip'],
      [{ dst_ip: 167_772_165 }, 'dst_ip'],
      [{ argv: 'sh -c true' }, 'argv'],
      [{ argv: ['sh', 1] }, 'argv'],
      [{ path: ['/bin/sh'] }, 'path'],
      [{ exit_code: '0' }, 'exit_code'],
      [{ length: -1 }, 'length'],
      [{ target_pid: 'x' }, 'target_pid'],
      [{ http: 'GET /' }, 'http'],
      [{ event_type: 7 }, 'event_type'],
      [{ timestamp: 1_767_225_600 }, 'timestamp'],
      [{ source: 1 }, 'source'],
      [{ observed_type: 'file_open' }, 'observed_type'],
    ];
    for (const [fields, name] of cases) {
      const result = rejected({ ...base, ...fields });
      assert.equal(result.code, 'wrong_type', name);
      assert.ok(result.message.startsWith(name), `${name}: ${result.message}`);
    }
  });

  it('rejects as wrong_type when type and event_type disagree', function () {
    assert.equal(rejected({ ...base, type: 'exit' }).code, 'wrong_type');
    assert.equal(parsed({ ...base, type: 'execve' }).type, 'execve');
  });
});
