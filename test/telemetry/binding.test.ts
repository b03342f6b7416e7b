import assert from 'node:assert/strict';
import type { Binding, BindRequestError } from '../../src/telemetry/binding.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { parseRfc3339 } from '../../src/shared/rfc3339.js';

const now = 1_700_000_000_000_000_000n;
const base = { run_id: 'run_1', tool_call_id: 'tc_1', pid: 42 };

function accepted(body: unknown): Binding {
  const result = parseBindRequest(body, now);
  if (isBindRequestError(result)) assert.fail(`refused: ${result.field}: ${result.message}`);
  return result;
}

function refused(body: unknown): BindRequestError {
  const result = parseBindRequest(body, now);
  if (!isBindRequestError(result))
    assert.fail(`accepted ${JSON.stringify(body, (_k, v: unknown) => String(v))}`);
  return result;
}

function ns(text: string): bigint {
  const value = parseRfc3339(text);
  assert.notEqual(value, undefined, text);
  return value!;
}

describe('parseBindRequest', function () {
  it('builds a control_plane binding with defaults when only the required fields and a key are given', function () {
    const binding = accepted(base);
    assert.match(binding.binding_id, /^bnd_[a-z2-7]{20}$/);
    assert.equal(binding.run_id, 'run_1');
    assert.equal(binding.tool_call_id, 'tc_1');
    assert.equal(binding.pid, 42);
    assert.equal(binding.binding_source, 'control_plane');
    assert.equal(binding.confidence, 1);
    assert.equal(binding.created_ns, now);
    assert.equal(binding.startNs, null);
    assert.equal(binding.endNs, null);
    assert.equal(binding.started_at, null);
    assert.equal(binding.process_id, null);
  });

  it('gives every binding its own id when called twice', function () {
    assert.notEqual(accepted(base).binding_id, accepted(base).binding_id);
  });

  it('survives structuredClone unchanged when the binding is broadcast to a worker', function () {
    const binding = accepted({ ...base, started_at: '2025-01-02T03:04:05Z', cgroup_id: 7 });
    assert.deepEqual(structuredClone(binding), binding);
  });

  it('defaults confidence by source when the body gives none', function () {
    assert.equal(accepted({ ...base, binding_source: 'ai_asserted' }).confidence, 0.5);
    assert.equal(accepted({ ...base, binding_source: 'k8s_cgroup' }).confidence, 0.8);
    assert.equal(accepted({ ...base, binding_source: 'harness' }).confidence, 1);
    assert.equal(accepted({ ...base, binding_source: 'ai_asserted', confidence: 0.3 }).confidence, 0.3);
    assert.equal(accepted({ ...base, confidence: 1 }).confidence, 1);
  });

  it('keeps the time strings as received and parses them to instants when both bounds are given', function () {
    const binding = accepted({
      ...base,
      started_at: '2025-01-02T05:04:05+02:00',
      ended_at: '2025-01-02T03:04:06.5Z',
    });
    assert.equal(binding.started_at, '2025-01-02T05:04:05+02:00');
    assert.equal(binding.ended_at, '2025-01-02T03:04:06.5Z');
    assert.equal(binding.startNs, ns('2025-01-02T03:04:05Z'));
    assert.equal(binding.endNs, ns('2025-01-02T03:04:06.5Z'));
  });

  it('extends a whole-second end to the last nanosecond of that second when ended_at has no fraction', function () {
    const binding = accepted({ ...base, ended_at: '2025-01-02T03:04:06Z' });
    assert.equal(binding.endNs, ns('2025-01-02T03:04:06Z') + 999_999_999n);
    assert.equal(binding.startNs, null);
  });

  it('keeps the end exact when ended_at has a fraction, even an all-zero one', function () {
    assert.equal(
      accepted({ ...base, ended_at: '2025-01-02T03:04:06.000Z' }).endNs,
      ns('2025-01-02T03:04:06Z'),
    );
  });

  it('accepts an end in the same whole second as a fractional start when ended_at has no fraction', function () {
    const binding = accepted({
      ...base,
      started_at: '2025-01-02T03:04:06.5Z',
      ended_at: '2025-01-02T03:04:06Z',
    });
    assert.ok(binding.endNs! > binding.startNs!);
  });

  it('turns a numeric cgroup_id into its decimal string and keeps a string one as given', function () {
    assert.equal(accepted({ run_id: 'r', tool_call_id: 't', cgroup_id: 12345 }).cgroup_id, '12345');
    assert.equal(accepted({ run_id: 'r', tool_call_id: 't', cgroup_id: 0 }).cgroup_id, '0');
    assert.equal(
      accepted({ run_id: 'r', tool_call_id: 't', cgroup_id: '/kubepods/pod1' }).cgroup_id,
      '/kubepods/pod1',
    );
  });

  it('treats null as absent when an optional field is null', function () {
    const binding = accepted({ ...base, session_id: null, ended_at: null, confidence: null });
    assert.equal(binding.session_id, null);
    assert.equal(binding.endNs, null);
    assert.equal(binding.confidence, 1);
  });

  it('accepts any one system-side key when it is the only one', function () {
    const bare = { run_id: 'r', tool_call_id: 't' };
    for (const key of [
      { process_id: 'p' },
      { container_id: 'c' },
      { cgroup_id: '1' },
      { pid: 1 },
      { root_pid: 1 },
    ]) {
      accepted({ ...bare, ...key });
    }
  });

  it('refuses a body that is not a JSON object', function () {
    for (const body of [null, [], 'x', 3, undefined]) assert.equal(refused(body).field, 'body');
  });

  it('refuses the body when run_id or tool_call_id is missing', function () {
    assert.deepEqual(refused({ tool_call_id: 't', pid: 1 }), {
      field: 'run_id',
      message: 'run_id is required',
    });
    assert.equal(refused({ run_id: 'r', pid: 1 }).field, 'tool_call_id');
  });

  it('refuses run_id when it is a number, empty, too long or holds control characters', function () {
    for (const runId of [7, '', 'x'.repeat(257), 'a\nb', 'a\u0000', 'a\u009b', '\ud800x', true, {}]) {
      const error = refused({ ...base, run_id: runId });
      assert.equal(error.field, 'run_id');
      assert.match(error.message, /run_id/);
    }
    accepted({ ...base, run_id: 'x'.repeat(256) });
    accepted({ ...base, run_id: 'ünïcødé 🚀' });
  });

  it('refuses an id field when it is not a string', function () {
    for (const field of ['session_id', 'process_id', 'container_id']) {
      assert.equal(refused({ ...base, [field]: 12 }).field, field);
    }
    assert.equal(refused({ ...base, cgroup_id: true }).field, 'cgroup_id');
    assert.equal(refused({ ...base, cgroup_id: -1 }).field, 'cgroup_id');
    assert.equal(refused({ ...base, cgroup_id: 2 ** 53 }).field, 'cgroup_id');
  });

  it('refuses confidence when it is 0, above 1 or not a number', function () {
    for (const confidence of [0, 1.5, 'high', -0.1, true]) {
      const error = refused({ ...base, confidence });
      assert.equal(error.field, 'confidence');
      assert.match(error.message, /confidence/);
    }
  });

  it('refuses binding_source when it is not one of the four sources', function () {
    for (const source of ['kernel', 'AI_ASSERTED', 3]) {
      const error = refused({ ...base, binding_source: source });
      assert.equal(error.field, 'binding_source');
      assert.match(error.message, /control_plane, k8s_cgroup, harness, ai_asserted/);
    }
  });

  it('refuses ended_at when it is before started_at', function () {
    const error = refused({ ...base, started_at: '2025-01-02T03:04:05Z', ended_at: '2025-01-02T03:04:04Z' });
    assert.equal(error.field, 'ended_at');
    assert.match(error.message, /before started_at/);
    refused({ ...base, started_at: '2025-01-02T03:04:05.2Z', ended_at: '2025-01-02T03:04:05.1Z' });
  });

  it('refuses a time that is not RFC 3339', function () {
    for (const text of [
      '2025-01-02',
      '2025-01-02T03:04:05',
      '2025-13-02T03:04:05Z',
      'yesterday',
      1735787045,
    ]) {
      assert.equal(refused({ ...base, started_at: text }).field, 'started_at');
      assert.equal(refused({ ...base, ended_at: text }).field, 'ended_at');
    }
  });

  it('refuses the body and names the field when it carries an unknown field', function () {
    const error = refused({ ...base, evidence_level: 'kernel_correlated' });
    assert.equal(error.field, 'evidence_level');
    assert.match(error.message, /unknown field "evidence_level"/);
    assert.equal(
      refused(JSON.parse('{"run_id":"r","tool_call_id":"t","pid":1,"__proto__":{"x":1}}')).field,
      '__proto__',
    );
    const many = refused({ ...base, a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 });
    assert.match(many.message, /unknown fields "a", "b", "c", "d", "e" and 1 more/);
    assert.match(refused({ ...base, 'x\ny': 1 }).message, /"x\\ny"/);
  });

  it('refuses a binding when it names no system-side key', function () {
    const error = refused({
      run_id: 'r',
      tool_call_id: 't',
      session_id: 's',
      started_at: '2025-01-02T03:04:05Z',
    });
    assert.match(error.message, /process_id, container_id, cgroup_id, pid or root_pid/);
  });

  it('refuses pid and root_pid when they are not positive 31-bit integers', function () {
    for (const field of ['pid', 'root_pid']) {
      for (const pid of [-1, 0, 1.5, '12', 2 ** 31, Number.MAX_SAFE_INTEGER, false]) {
        const error = refused({ run_id: 'r', tool_call_id: 't', process_id: 'p', [field]: pid });
        assert.equal(error.field, field);
        assert.match(error.message, new RegExp(field));
      }
    }
    assert.equal(accepted({ ...base, root_pid: 2 ** 31 - 1 }).root_pid, 2 ** 31 - 1);
  });
});
