import assert from 'node:assert/strict';
import { WriteQueue } from '../../src/store/write-queue.js';

describe('WriteQueue', function () {
  it('counts a write in changes only once it has ended, so a reader never counts rows it cannot read yet', async function () {
    const queue = new WriteQueue();
    let release!: () => void;
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(queue.changes, 0, 'a write still running is not counted');
    release();
    await running;
    assert.equal(queue.changes, 1);
  });

  it('counts housekeeping in changes only when it says it changed something, and whenever it fails', async function () {
    const queue = new WriteQueue();
    await queue.run(() => Promise.resolve(0), { housekeeping: true });
    await queue.run(() => Promise.resolve(0), { housekeeping: true, changed: (removed) => removed > 0 });
    assert.equal(queue.changes, 0);
    await queue.run(() => Promise.resolve(3), { housekeeping: true, changed: (removed) => removed > 0 });
    assert.equal(queue.changes, 1);
    await assert.rejects(
      queue.run(() => Promise.reject(new Error('rolled back')), { housekeeping: true, changed: () => false }),
    );
    assert.equal(queue.changes, 2, 'what a failed write left is unknown');
    assert.equal(queue.generation, 0, 'housekeeping never counts in generation');
  });

  it('counts every other write in changes, whatever it says it left for sealing', async function () {
    const queue = new WriteQueue();
    await queue.run(() => Promise.resolve(false), { leftWork: (sealable) => sealable });
    assert.equal(queue.generation, 0);
    assert.equal(queue.changes, 1, 'a commit of host events only leaves nothing to seal, but changes them');
    await queue.run(() => Promise.resolve(true), { leftWork: (sealable) => sealable });
    await queue.run(() => Promise.resolve());
    assert.equal(queue.generation, 2);
    assert.equal(queue.changes, 3);
  });
});
