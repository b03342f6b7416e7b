import assert from 'node:assert/strict';
import { BindingLog } from '../../src/telemetry/binding-log.js';
import { parseBindRequest, type Binding } from '../../src/telemetry/binding.js';

function binding(run: string): Binding {
  const parsed = parseBindRequest(
    {
      run_id: run,
      tool_call_id: 'tc',
      cgroup_id: 'cg',
      started_at: '2026-01-01T00:00:00Z',
      ended_at: '2026-01-01T00:00:09Z',
    },
    123n,
  );
  assert.ok('binding_id' in parsed);
  return parsed;
}

describe('BindingLog', function () {
  it('gives a reader on the same shared buffer every binding once, in order, with its instants intact', function () {
    const writer = new BindingLog(new SharedArrayBuffer(64 * 1024));
    const reader = new BindingLog(writer.buffer); // as a worker sees it
    const first = [binding('r1'), binding('r2')];
    for (const b of first) assert.ok(writer.append(b));
    const seen: Binding[] = [];
    reader.readNew((b) => seen.push(b));
    assert.deepEqual(seen, first);
    writer.append(binding('r3'));
    reader.readNew((b) => seen.push(b));
    assert.deepEqual(
      seen.map((b) => b.run_id),
      ['r1', 'r2', 'r3'],
    );
    assert.equal(seen[0]!.endNs, first[0]!.endNs);
    reader.readNew(() => assert.fail('nothing new'));
  });

  it('refuses an append that does not fit and keeps what it holds readable', function () {
    const writer = new BindingLog(new SharedArrayBuffer(600));
    let appended = 0;
    while (writer.append(binding(`r${appended}`))) appended++;
    assert.ok(appended >= 1);
    assert.equal(writer.size, appended);
    const seen: string[] = [];
    new BindingLog(writer.buffer).readNew((b) => seen.push(b.run_id));
    assert.equal(seen.length, appended);
  });
});
