/**
 * Since when the kernel captured a process (capture-coverage.ts), as the hook trust check asks it:
 * real clock ticks from /proc/uptime, and lineages of processes by pid and start tick as /proc reads
 * them (pids no cgroup binding names, so only the pid and host rules speak).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CaptureCoverage,
  bootTicksNow,
  isCapturedFromFork,
  type StartedProcess,
} from '../../src/sensor/capture-coverage.js';
import { cgroup2MountPoint, processCgroupChain } from '../../src/provenance/record/cgroup-root.js';
import { CommandCgroup } from '../../src/provenance/record/command-cgroup.js';
import { eventually } from '../support/eventually.js';
import { removeTestCgroup } from '../support/record-cgroup.js';

const proc = (pid: number, startTicks: bigint): StartedProcess => ({ pid, startTicks });

/** Binds pid `id` (or, with no id, captures the host) and says between which ticks that happened. */
function bind(coverage: CaptureCoverage, id?: number): { before: bigint; after: bigint } {
  const before = bootTicksNow();
  if (id === undefined) coverage.captureAll();
  else coverage.added({ kind: 'process', id: String(id) });
  return { before, after: bootTicksNow() };
}

/** Waits for the clock tick after `ticks`. */
async function nextTick(ticks: bigint): Promise<void> {
  await eventually('the next clock tick', bootTicksNow, (now) => now > ticks, { everyMs: 2 });
}

/** The tick pid `id` was bound in: what covers its own process started before that. */
function boundTick(coverage: CaptureCoverage, id: number, at: { before: bigint }): bigint {
  const since = coverage.since([proc(id, at.before - 1000n)]);
  assert.ok(since !== null);
  return since;
}

function assertAt(since: bigint | null, at: { before: bigint; after: bigint }): void {
  assert.ok(
    since !== null && since >= at.before && since <= at.after,
    `${since} not in ${at.before}..${at.after}`,
  );
}

describe('capture coverage: since when a process is captured', function () {
  it("reads the clock /proc counts a process's start in: boot ticks of 10 ms, at /proc/uptime's value", function () {
    const before = BigInt(Math.round(Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]) * 100));
    const now = bootTicksNow();
    const selfStart = BigInt(readFileSync('/proc/self/stat', 'latin1').split(') ')[1]!.split(' ')[19]!);
    assert.ok(now >= before && now - before < 100n, `${before} ${now}`);
    assert.ok(selfStart <= now, `this process started at ${selfStart}, after ${now}`);
  });

  it('captures a bound pid from its binding, not from its fork; a later process given the pid is not it', function () {
    const coverage = new CaptureCoverage();
    const at = bind(coverage, 4000001);
    assertAt(coverage.since([proc(4000001, at.before - 50n)]), at);
    // started after the binding: another process has had the pid since (the kernel dropped the first at its exit)
    assert.equal(coverage.since([proc(4000001, at.after + 5n)]), null);
  });

  it('captures a process forked under a bound one from its fork, only when it and each one above it came after the binding', function () {
    const coverage = new CaptureCoverage();
    const at = bind(coverage, 4000002);
    const agent = proc(4000002, at.before - 100n);
    assertAt(coverage.since([proc(4000003, at.after + 3n), proc(4000004, at.after + 2n), agent]), at);
    // a shell forked before the binding, and its child after: the kernel never added the shell, nor so its child
    assert.equal(coverage.since([proc(4000005, at.after + 3n), proc(4000006, at.before - 10n), agent]), null);
    // nor is a process beside it, which no binding names
    assert.equal(coverage.since([proc(4000007, at.before - 200n)]), null);
  });

  it('keeps a pid bound again at its last binding, and captures every process with --capture host from the start', function () {
    const coverage = new CaptureCoverage();
    const first = bind(coverage, 4000008);
    assertAt(coverage.since([proc(4000009, first.after + 1n), proc(4000008, first.before - 1n)]), first);
    // bound again, after its process ended and the kernel dropped it: its children before this are not covered
    const again = bind(coverage, 4000008);
    assertAt(coverage.since([proc(4000010, again.after + 1n), proc(4000008, again.before - 1n)]), again);
    const host = bind(coverage);
    assertAt(coverage.since([proc(4000011, host.after + 1n)]), host);
    // the earliest coverage wins
    assertAt(coverage.since([proc(4000012, again.after + 1n), proc(4000008, again.before - 1n)]), again);
  });

  it("takes the earliest of a bound pid's and the host's coverage, whichever came first", async function () {
    const coverage = new CaptureCoverage();
    const pid = bind(coverage, 4000013);
    await nextTick(pid.after);
    const host = bind(coverage);
    assertAt(coverage.since([proc(4000014, pid.after + 1n), proc(4000013, pid.before - 1n)]), pid);
    // a process no binding names is captured from the host's start alone
    assertAt(coverage.since([proc(4000015, pid.before - 1n)]), host);
  });

  it('captures the processes of a bound cgroup from its first binding, a binding again changing nothing', async function () {
    const mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'));
    if (mount === undefined) this.skip(); // no cgroup2: no cgroup to bind
    const cgroup = await CommandCgroup.create(mount, 'capture-coverage');
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(join(cgroup.path, 'cgroup.procs'), String(child.pid));
      const [own] = processCgroupChain(child.pid!, mount);
      assert.equal(own?.id, cgroup.id);
      const coverage = new CaptureCoverage();
      const before = bootTicksNow();
      coverage.added({ kind: 'cgroup', id: cgroup.id });
      const first = { before, after: bootTicksNow() };
      await nextTick(first.after);
      coverage.added({ kind: 'cgroup', id: cgroup.id });
      // the kernel's map holds a cgroup from its first binding on: the process in it, since then
      assertAt(coverage.since([proc(child.pid!, first.before - 1n)]), first);
    } finally {
      await removeTestCgroup(cgroup);
    }
  });

  it("takes a process started in its binding's clock tick as the bound one, and its child only when forked in a later tick", function () {
    const coverage = new CaptureCoverage();
    const at = bind(coverage, 4000016);
    const tick = boundTick(coverage, 4000016, at);
    // /proc counts a start in 10 ms ticks: one in the binding's tick may be the bound process, which
    // is covered from then, and not from its fork (the exec history vouches for none of its execs:
    // exec-history-check.ts); its child forked a tick later is, and nothing is when nothing covers it
    assert.equal(coverage.since([proc(4000016, tick)]), tick);
    assert.equal(isCapturedFromFork(tick, tick), false);
    assert.equal(coverage.since([proc(4000017, tick + 1n), proc(4000016, tick)]), tick);
    assert.equal(isCapturedFromFork(tick, tick + 1n), true);
    assert.equal(isCapturedFromFork(null, tick + 1n), false);
    // a child started in that tick may have been forked before the binding: the kernel did not add it
    assert.equal(
      coverage.since([proc(4000018, tick + 2n), proc(4000017, tick), proc(4000016, tick - 5n)]),
      null,
    );
    assert.equal(coverage.since([proc(4000017, tick), proc(4000016, tick - 5n)]), null);
  });
});
