/**
 * `provd daemon` caps glibc's malloc arenas before its threads start (native/hash/malloc-arenas.cc):
 * uncapped, a store growing to 10M events held about 20 arenas and 270 MB more resident memory.
 */
import assert from 'node:assert/strict';
import { limitMallocArenas, mallocArenas } from '../../src/provenance/batch-hash.js';
import { startDaemon, removeDir, type RunningDaemon } from '../support/daemon.js';
import { ingest, nativeLine } from '../support/telemetry.js';

/** Sends a few thousand events through every thread that allocates on the way to the store. */
async function ingestSome(daemon: RunningDaemon): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const lines = Array.from({ length: 2_000 }, (_, i) => nativeLine({ pid: 10_000 + round * 2_000 + i }));
    const answer = await ingest(daemon.url, lines.join('\n') + '\n');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
}

describe('malloc arenas', function () {
  this.timeout(60_000);
  const glibc = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  const onGlibc = glibc.header?.glibcVersionRuntime !== undefined;

  it('the addon refuses a cap that is not a positive number', function () {
    if (!onGlibc) this.skip();
    assert.throws(() => limitMallocArenas('2' as unknown as number), TypeError);
    assert.throws(() => limitMallocArenas(0), RangeError);
    assert.throws(() => limitMallocArenas(-3), RangeError);
  });

  it('the addon counts the arenas of its own process', function () {
    if (!onGlibc) this.skip();
    const arenas = mallocArenas();
    assert.ok(arenas !== null && arenas >= 1, `mallocArenas() answered ${arenas}`);
  });

  /** Starts a daemon, ingests, stops it, and answers what its `stopped` line reported. */
  async function arenasAtStop(env: Record<string, string>): Promise<unknown> {
    const daemon = await startDaemon({ env });
    try {
      await ingestSome(daemon);
    } finally {
      assert.equal(await daemon.stop(), 0);
      removeDir(daemon.dataDir);
    }
    const stopped = daemon.logs.find((entry) => entry['msg'] === 'stopped');
    assert.ok(stopped !== undefined, 'the daemon logged no stopped line');
    assert.equal(typeof stopped['peak_rss_bytes'], 'number');
    return stopped['malloc_arenas'];
  }

  it('keeps the daemon to at most 3 arenas through an ingest', async function () {
    if (!onGlibc) this.skip();
    const arenas = await arenasAtStop({});
    assert.ok(typeof arenas === 'number' && arenas <= 3, `the daemon made ${String(arenas)} arenas`);
  });

  it('leaves a MALLOC_ARENA_MAX the user set to glibc', async function () {
    if (!onGlibc) this.skip();
    // 8 is above our cap: the same ingest then spreads over more arenas than the cap allows
    const arenas = await arenasAtStop({ MALLOC_ARENA_MAX: '8' });
    assert.ok(typeof arenas === 'number' && arenas > 3, `the daemon made ${String(arenas)} arenas`);
  });
});
