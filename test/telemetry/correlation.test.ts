import assert from 'node:assert/strict';
import type { Binding } from '../../src/telemetry/binding.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { BindingIndex, normalizeContainerId } from '../../src/telemetry/binding-index.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { parseRfc3339 } from '../../src/shared/rfc3339.js';

const fullContainer = '3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899';
let created = 1_700_000_000_000_000_000n;

function ns(text: string): bigint {
  const value = parseRfc3339(text);
  assert.notEqual(value, undefined, text);
  return value!;
}

function bind(fields: Record<string, unknown>): Binding {
  created += 1n;
  const result = parseBindRequest({ run_id: 'run', tool_call_id: 'tc', ...fields }, created);
  if (isBindRequestError(result)) assert.fail(`refused: ${result.message}`);
  return result;
}

function event(time: string, fields: Partial<ParsedEvent> = {}): ParsedEvent {
  return {
    type: 'execve',
    source: 'native_jsonl',
    time,
    timeNs: ns(time),
    pid: null,
    tgid: null,
    ppid: null,
    uid: 0,
    loginUid: null,
    comm: 'sh',
    cgroupId: null,
    containerId: null,
    attrs: {},
    ...fields,
  };
}

function indexOf(...bindings: Binding[]): BindingIndex {
  const index = new BindingIndex();
  for (const binding of bindings) assert.equal(index.add(binding), true);
  return index;
}

const window = { started_at: '2025-01-02T03:00:00Z', ended_at: '2025-01-02T03:10:00Z' };
const inside = '2025-01-02T03:05:00Z';

describe('BindingIndex', function () {
  it('matches by process identity with confidence 1.0 when the event carries the bound exec_id', function () {
    const binding = bind({ process_id: 'a3ViZTo1MjE0', ...window });
    const match = indexOf(binding).correlate(event(inside, { pid: 9, attrs: { exec_id: 'a3ViZTo1MjE0' } }));
    assert.equal(match?.binding, binding);
    assert.equal(match.method, 'process');
    assert.equal(match.confidence, 1);
    assert.equal(match.evidenceLevel, 'kernel_correlated');
  });

  it('matches by process identity when a decimal process_id equals the tgid of an event without exec_id', function () {
    const index = indexOf(bind({ process_id: '4242' }));
    assert.equal(index.correlate(event(inside, { pid: 4243, tgid: 4242 }))?.method, 'process');
    assert.equal(index.correlate(event(inside, { pid: 4242, tgid: null }))?.method, 'process');
    // an event with an exec_id is identified by it, not by its pid
    assert.equal(index.correlate(event(inside, { pid: 4242, attrs: { exec_id: 'other' } })), undefined);
    assert.equal(indexOf(bind({ process_id: '04242' })).correlate(event(inside, { pid: 4242 })), undefined);
  });

  it('matches by cgroup with confidence 0.98 when the event time is within the interval', function () {
    const match = indexOf(bind({ cgroup_id: 777, ...window })).correlate(event(inside, { cgroupId: '777' }));
    assert.equal(match?.method, 'cgroup');
    assert.equal(match.confidence, 0.98);
  });

  it('matches by container with confidence 0.92 when the ids are equal', function () {
    const match = indexOf(bind({ container_id: fullContainer, ...window })).correlate(
      event(inside, { containerId: fullContainer }),
    );
    assert.equal(match?.method, 'container');
    assert.equal(match.confidence, 0.92);
  });

  it('matches by pid with confidence 0.85 when the event pid, tgid or ppid is the bound pid or root pid', function () {
    const index = indexOf(bind({ pid: 100, ...window }), bind({ root_pid: 200, ...window }));
    for (const fields of [
      { pid: 100 },
      { pid: 5, tgid: 100 },
      { pid: 5, ppid: 100 },
      { pid: 6, ppid: 200 },
    ]) {
      const match = index.correlate(event(inside, fields));
      assert.equal(match?.method, 'pid', JSON.stringify(fields));
      assert.equal(match.confidence, 0.85);
    }
    assert.equal(index.correlate(event(inside, { pid: 5, tgid: 5, ppid: 1 })), undefined);
  });

  it('prefers the higher tier when an event matches a cgroup binding and a pid binding', function () {
    const byPid = bind({ pid: 100, started_at: '2025-01-02T03:04:00Z' });
    const byCgroup = bind({ cgroup_id: '777', started_at: '2025-01-02T03:00:00Z' });
    const index = indexOf(byPid, byCgroup);
    const match = index.correlate(event(inside, { pid: 100, cgroupId: '777' }));
    assert.equal(match?.binding, byCgroup);
    assert.equal(match.method, 'cgroup');
    const byProcess = bind({ process_id: 'exec-1' });
    index.add(byProcess);
    assert.equal(
      index.correlate(event(inside, { pid: 100, cgroupId: '777', attrs: { exec_id: 'exec-1' } }))?.binding,
      byProcess,
    );
  });

  it('picks the latest-starting binding when several in one tier match', function () {
    const unbounded = bind({ cgroup_id: '1' });
    const early = bind({ cgroup_id: '1', started_at: '2025-01-02T03:00:00Z' });
    const late = bind({
      cgroup_id: '1',
      started_at: '2025-01-02T03:04:00Z',
      ended_at: '2025-01-02T03:06:00Z',
    });
    const future = bind({ cgroup_id: '1', started_at: '2025-01-02T03:08:00Z' });
    // added out of order: the index orders by start, not by arrival
    const index = indexOf(future, late, unbounded, early);
    assert.equal(index.correlate(event(inside, { cgroupId: '1' }))?.binding, late);
    assert.equal(index.correlate(event('2025-01-02T03:07:00Z', { cgroupId: '1' }))?.binding, early);
    assert.equal(index.correlate(event('2025-01-02T03:09:00Z', { cgroupId: '1' }))?.binding, future);
    assert.equal(index.correlate(event('2025-01-02T02:00:00Z', { cgroupId: '1' }))?.binding, unbounded);
  });

  it('picks a system-side binding over an ai_asserted one whatever their starts', function () {
    const harness = bind({ cgroup_id: '2', binding_source: 'harness', started_at: '2025-01-02T03:00:00Z' });
    const claim = bind({ cgroup_id: '2', binding_source: 'ai_asserted', started_at: '2025-01-02T03:04:00Z' });
    const earlier = bind({
      cgroup_id: '2',
      binding_source: 'ai_asserted',
      started_at: '2025-01-02T02:00:00Z',
    });
    const index = indexOf(claim, harness, earlier);
    // the later agent claim does not take the harness's events...
    assert.equal(index.correlate(event(inside, { cgroupId: '2' }))?.binding, harness);
    // ...but claims what no system-side binding covers
    assert.equal(index.correlate(event('2025-01-02T02:30:00Z', { cgroupId: '2' }))?.binding, earlier);
  });

  it('picks the later-created binding when two start at the same instant', function () {
    const first = bind({ pid: 7, started_at: '2025-01-02T03:00:00Z' });
    const second = bind({ pid: 7, started_at: '2025-01-02T03:00:00Z' });
    assert.equal(indexOf(second, first).correlate(event(inside, { pid: 7 }))?.binding, second);
    assert.equal(
      indexOf(bind({ pid: 8 }), bind({ root_pid: 8 })).correlate(event(inside, { pid: 8 }))?.binding.root_pid,
      8,
    );
  });

  it('picks the latest start across pid, tgid and ppid when each names a different binding', function () {
    const parent = bind({ root_pid: 10, started_at: '2025-01-02T03:00:00Z' });
    const child = bind({ pid: 11, started_at: '2025-01-02T03:01:00Z' });
    assert.equal(indexOf(child, parent).correlate(event(inside, { pid: 11, ppid: 10 }))?.binding, child);
  });

  it('caps confidence at the binding confidence and marks ai_asserted matches context_asserted', function () {
    const match = indexOf(bind({ cgroup_id: '5', binding_source: 'ai_asserted' })).correlate(
      event(inside, { cgroupId: '5' }),
    );
    assert.equal(match?.confidence, 0.5);
    assert.equal(match.evidenceLevel, 'context_asserted');
    const k8s = indexOf(bind({ container_id: fullContainer, binding_source: 'k8s_cgroup' })).correlate(
      event(inside, { containerId: fullContainer }),
    );
    assert.equal(k8s?.confidence, 0.8);
    assert.equal(k8s.evidenceLevel, 'kernel_correlated');
    const harness = indexOf(bind({ pid: 3, binding_source: 'harness', confidence: 0.9 })).correlate(
      event(inside, { pid: 3 }),
    );
    assert.equal(harness?.confidence, 0.85);
  });

  it('includes the whole finishing second when ended_at is a whole-second timestamp', function () {
    const index = indexOf(
      bind({ cgroup_id: '9', started_at: '2025-01-02T03:00:00Z', ended_at: '2025-01-02T03:10:00Z' }),
    );
    assert.notEqual(index.correlate(event('2025-01-02T03:10:00.999999999Z', { cgroupId: '9' })), undefined);
    assert.equal(index.correlate(event('2025-01-02T03:10:01Z', { cgroupId: '9' })), undefined);
    assert.notEqual(index.correlate(event('2025-01-02T03:00:00Z', { cgroupId: '9' })), undefined);
    assert.equal(index.correlate(event('2025-01-02T02:59:59.999999999Z', { cgroupId: '9' })), undefined);
  });

  it('ends exactly at ended_at when it has a fraction', function () {
    const index = indexOf(bind({ cgroup_id: '9', ended_at: '2025-01-02T03:10:00.5Z' }));
    assert.notEqual(index.correlate(event('2025-01-02T03:10:00.5Z', { cgroupId: '9' })), undefined);
    assert.equal(index.correlate(event('2025-01-02T03:10:00.500000001Z', { cgroupId: '9' })), undefined);
  });

  it('matches every later event when the binding is open-ended', function () {
    const index = indexOf(bind({ pid: 1234, started_at: '2025-01-02T03:00:00Z' }));
    assert.notEqual(index.correlate(event('2099-12-31T23:59:59Z', { pid: 1234 })), undefined);
    assert.equal(index.correlate(event('2025-01-02T02:59:59Z', { pid: 1234 })), undefined);
  });

  it('matches no tier when the event time is outside the interval', function () {
    const index = indexOf(
      bind({ process_id: 'e1', cgroup_id: '1', container_id: fullContainer, pid: 5, ...window }),
    );
    const all = { pid: 5, cgroupId: '1', containerId: fullContainer, attrs: { exec_id: 'e1' } };
    assert.equal(index.correlate(event(inside, all))?.method, 'process');
    assert.equal(index.correlate(event('2025-01-02T02:59:00Z', all)), undefined);
    assert.equal(index.correlate(event('2025-01-02T03:11:00Z', all)), undefined);
  });

  it('finds an older still-open binding when a later one has already ended', function () {
    const long = bind({ cgroup_id: '1', started_at: '2025-01-02T03:00:00Z' });
    const index = indexOf(long);
    for (let minute = 1; minute < 9; minute++) {
      index.add(
        bind({
          cgroup_id: '1',
          started_at: `2025-01-02T03:0${minute}:00Z`,
          ended_at: `2025-01-02T03:0${minute}:30Z`,
        }),
      );
    }
    assert.equal(index.correlate(event('2025-01-02T03:05:45Z', { cgroupId: '1' }))?.binding, long);
    assert.equal(
      index.correlate(event('2025-01-02T03:05:15Z', { cgroupId: '1' }))?.binding.started_at,
      '2025-01-02T03:05:00Z',
    );
  });

  it('matches container ids across runtime schemes, case and truncation to 12+ characters', function () {
    const index = indexOf(bind({ container_id: `containerd://${fullContainer.toUpperCase()}` }));
    for (const id of [
      fullContainer,
      `docker://${fullContainer}`,
      `cri-o://${fullContainer}`,
      fullContainer.slice(0, 12),
      fullContainer.slice(0, 31),
      fullContainer.slice(0, 12).toUpperCase(),
    ]) {
      assert.equal(index.correlate(event(inside, { containerId: id }))?.method, 'container', id);
    }
    for (const id of [
      fullContainer.slice(0, 11),
      `${fullContainer.slice(0, 12)}0`,
      'ffffffffffff',
      `${fullContainer}0`,
    ]) {
      assert.equal(index.correlate(event(inside, { containerId: id })), undefined, id);
    }
  });

  it('matches a full event container id when the binding holds a 12-character one', function () {
    const index = indexOf(bind({ container_id: `docker://${fullContainer.slice(0, 12)}` }));
    assert.equal(index.correlate(event(inside, { containerId: fullContainer }))?.method, 'container');
  });

  it('matches a container binding when it arrives after an event with that id found none', function () {
    const index = indexOf(bind({ pid: 1 }));
    const seen = event(inside, { containerId: `docker://${fullContainer.slice(0, 31)}` });
    assert.equal(index.correlate(seen), undefined);
    index.add(bind({ container_id: fullContainer }));
    assert.equal(index.correlate(seen)?.method, 'container');
  });

  it('agrees with a scan of all bindings when intervals overlap at random', function () {
    // mulberry32: deterministic, so a failure replays
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const origin = ns('2025-01-02T00:00:00Z');
    const at = (second: number): string =>
      new Date(Number(origin / 1_000_000n) + second * 1000).toISOString();
    const bindings: Binding[] = [];
    for (let i = 0; i < 300; i++) {
      const start = random(1000);
      const fields: Record<string, unknown> = { cgroup_id: String(random(10)) };
      if (random(4) === 0) fields.binding_source = 'ai_asserted';
      if (random(20) > 0) fields.started_at = at(start);
      if (random(30) > 0) fields.ended_at = at(start + random(120));
      bindings.push(bind(fields));
    }
    const index = indexOf(...bindings);
    // a system-side binding outranks any ai_asserted one; then the latest start
    const rank = (b: Binding): bigint =>
      (b.binding_source === 'ai_asserted' ? 0n : 1n << 80n) + (b.startNs ?? -(1n << 70n));
    let matched = 0;
    for (let i = 0; i < 2000; i++) {
      const probe = event(at(random(1300) - 100), { cgroupId: String(random(10)) });
      let expected: Binding | undefined;
      for (const b of bindings) {
        if (b.cgroup_id !== probe.cgroupId) continue;
        if ((b.startNs !== null && probe.timeNs < b.startNs) || (b.endNs !== null && probe.timeNs > b.endNs))
          continue;
        if (
          expected === undefined ||
          rank(b) > rank(expected) ||
          (rank(b) === rank(expected) && b.created_ns > expected.created_ns)
        ) {
          expected = b;
        }
      }
      assert.equal(index.correlate(probe)?.binding, expected, probe.time);
      if (expected !== undefined) matched++;
    }
    // the probes must exercise both outcomes to prove anything
    assert.ok(matched > 200 && matched < 1950, `${matched} of 2000 matched`);
  });

  it('compares non-hex or short container ids exactly', function () {
    const index = indexOf(bind({ container_id: 'my-sandbox' }), bind({ container_id: 'abc123' }));
    assert.equal(index.correlate(event(inside, { containerId: 'MY-SANDBOX' }))?.method, 'container');
    assert.equal(index.correlate(event(inside, { containerId: 'my-sandbox-2' })), undefined);
    assert.equal(index.correlate(event(inside, { containerId: 'abc1234' })), undefined);
    assert.equal(index.correlate(event(inside, { containerId: 'abc123' }))?.method, 'container');
  });

  it('strips the runtime scheme and lower-cases when normalizing a container id', function () {
    assert.equal(normalizeContainerId('Docker://ABC'), 'abc');
    assert.equal(normalizeContainerId(fullContainer), fullContainer);
  });

  it('counts bindings and ignores a binding when its id is added again', function () {
    const binding = bind({ pid: 1 });
    const index = new BindingIndex();
    assert.equal(index.size, 0);
    assert.equal(index.add(binding), true);
    assert.equal(index.add(structuredClone(binding)), false);
    index.add(bind({ pid: 2 }));
    assert.equal(index.size, 2);
    assert.equal(index.version, 2);
  });

  it('matches nothing when no binding has the event keys', function () {
    const index = indexOf(bind({ pid: 1, cgroup_id: '2', container_id: fullContainer, process_id: 'x' }));
    assert.equal(
      index.correlate(event(inside, { pid: 9, tgid: 9, ppid: 8, cgroupId: '3', containerId: 'zzz' })),
      undefined,
    );
  });
});
