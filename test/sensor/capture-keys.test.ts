import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cgroup2MountPoint } from '../../src/provenance/record/cgroup-root.js';
import type { Binding } from '../../src/telemetry/binding.js';
import { captureKeys } from '../../src/sensor/capture-filter.js';

/** A binding with every key empty but those given. */
function binding(fields: Partial<Binding>): Binding {
  return {
    binding_id: 'b',
    run_id: 'run',
    tool_call_id: 'tc',
    session_id: null,
    process_id: null,
    container_id: null,
    cgroup_id: null,
    pid: null,
    root_pid: null,
    started_at: null,
    ended_at: null,
    binding_source: 'harness',
    confidence: 'high',
    created_ns: 0n,
    startNs: null,
    endNs: null,
    ...fields,
  } as Binding;
}

describe('the keys a binding adds to the kernel capture filter', function () {
  it('keeps a decimal cgroup id, pids and a numeric process id; an ended binding or a container id adds none', function () {
    assert.deepEqual(captureKeys(binding({ cgroup_id: '8812', pid: 41, process_id: '77' })), [
      { kind: 'cgroup', id: '8812' },
      { kind: 'process', id: '41' },
      { kind: 'process', id: '77' },
    ]);
    assert.deepEqual(captureKeys(binding({ process_id: 'tetragon:exec:abc' })), []);
    assert.deepEqual(captureKeys(binding({ container_id: 'abc123' })), []);
    assert.deepEqual(captureKeys(binding({ cgroup_id: '8812', ended_at: '2026-01-01T00:00:00Z' })), []);
  });

  it('turns a cgroup path into its inode under the cgroup2 mount, and refuses a path that climbs out of it', function () {
    const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'));
    if (mount === undefined) {
      process.stderr.write('      skipped: no cgroup2 filesystem is mounted\n');
      this.skip();
    }
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'))!
      .slice(3);
    const inode = statSync(join(mount, own), { bigint: true }).ino.toString();
    assert.deepEqual(captureKeys(binding({ cgroup_id: own })), [{ kind: 'cgroup', id: inode }]);
    assert.deepEqual(captureKeys(binding({ cgroup_id: '../../etc' })), []);
    assert.deepEqual(captureKeys(binding({ cgroup_id: `${own}/no-such-child` })), []);
  });
});
