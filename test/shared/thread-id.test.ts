import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { currentThreadId, listThreadIds } from '../../src/shared/thread-id.js';
import { startDaemon } from '../support/daemon.js';
import { eventually, softDeadline } from '../support/eventually.js';
import { ingest, nativeLine } from '../support/telemetry.js';

describe('thread ids', function () {
  it('names the calling thread by its kernel TID, one of this process', function () {
    const tid = currentThreadId();
    assert.equal(tid, process.pid, 'the main thread is the thread-group leader');
    assert.ok(listThreadIds().has(process.pid));
  });

  it('gives a worker thread a TID of its own', async function () {
    const code = `const { readlinkSync } = require('node:fs'); const { parentPort } = require('node:worker_threads');
      parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));`;
    const worker = new Worker(code, { eval: true });
    const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
    await worker.terminate();
    assert.notEqual(tid, process.pid);
    assert.ok(tid > 0);
  });

  it('logs a role for each of the daemon threads, every TID one of the daemon process', async function () {
    const daemon = await startDaemon();
    try {
      // the first task starts the first normalize thread: a daemon that never ingests has none
      const normalizeThreads = () =>
        daemon.logs.filter((line) => line['msg'] === 'thread' && line['role'] === 'normalize').length;
      assert.equal(normalizeThreads(), 0, 'a normalize thread started before any task');
      assert.equal((await ingest(daemon.url, nativeLine(), 'native')).status, 200);
      // it logs once its module has loaded, which may come after the answer
      await eventually('a normalize thread logged', normalizeThreads, (count) => count >= 1, softDeadline);
      const tasks = new Set(readdirSync(`/proc/${daemon.child.pid}/task`).map(Number));
      const roles = new Map<string, number[]>();
      for (const line of daemon.logs) {
        if (line['msg'] === 'thread')
          roles.set(String(line['role']), [...(roles.get(String(line['role'])) ?? []), Number(line['tid'])]);
        if (line['msg'] === 'threads') roles.set(String(line['role']), line['tids'] as number[]);
      }
      assert.deepEqual(roles.get('main'), [daemon.child.pid]);
      for (const role of ['store', 'duckdb', 'pool', 'normalize']) {
        const tids = roles.get(role) ?? [];
        assert.ok(tids.length > 0, `no ${role} thread logged`);
        for (const tid of tids)
          assert.ok(tasks.has(tid), `${role} thread ${tid} is not a thread of the daemon`);
      }
      const all = [...roles.values()].flat();
      assert.equal(new Set(all).size, all.length, 'a thread was given two roles');
    } finally {
      await daemon.stop();
    }
  });
});
