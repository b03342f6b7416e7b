import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { assertStopsCleanly, awaitLogged, useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { useTempDir } from '../support/temp-dir.js';
import { ingest, nativeLine } from '../support/telemetry.js';

/** The host rounds that ran, from the daemon's step trace (PROVD_TRACE_STEPS): whether each signed. */
function roundsRun(traceFile: string): { signed: number }[] {
  if (!existsSync(traceFile)) return [];
  return readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { kind: string; signed: number })
    .filter((line) => line.kind === 'host_round');
}

function anchored(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
}

describe('host rounds of an idle daemon', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-host-rounds-');
  const anchorFile = (): string => join(fixture.dataDir, 'host-chain-anchor.log');

  /** A daemon whose host rounds run every 100 ms, its spool giving host events up after 100 ms. */
  function startFastRounds(args: string[] = [], env: Record<string, string> = {}): Promise<RunningDaemon> {
    return fixture.start({
      args: ['--spool-ttl', '100ms', ...args],
      env: { PROVD_FAULT_HOST_ROUND_MS: '100', ...env },
    });
  }

  /** Stores a host event of `cgroup` and waits for the anchor file's `lines`th line: its entry signed and anchored. */
  async function storeAnchored(daemon: RunningDaemon, cgroup: string, lines: number): Promise<void> {
    assert.equal((await ingest(daemon.url, hostLine(cgroup), 'native')).status, 200);
    await eventually(
      `host chain entry ${lines} anchored`,
      () => anchored(anchorFile()),
      (n) => n === lines,
    );
  }

  it('open no transaction while nothing is written, and sign what a write adds after', async function () {
    const traceFile = join(work.path, 'steps.jsonl');
    const daemon = await startFastRounds([], { PROVD_TRACE_STEPS: traceFile });
    await storeAnchored(daemon, '911', 1);
    // once the writes it set off have ended (its commit, the spool's, the seal round), no round runs:
    // none in a second (10 intervals); without the check one runs every 100 ms and this times out
    let seen = -1;
    await eventually(
      'host rounds to stop while nothing is written',
      () => {
        const ran = roundsRun(traceFile).length;
        const stopped = ran === seen;
        seen = ran;
        return stopped;
      },
      (stopped) => stopped,
      { everyMs: 1000 },
    );
    // a write: the next round runs and signs it
    await storeAnchored(daemon, '912', 2);
    // a round after the pause signed it (how many rounds the first write's batches took depends on load);
    // a round writes its anchor line before its trace line, so the trace is waited for too
    await eventually(
      'a round after the pause to have signed',
      () => roundsRun(traceFile).slice(seen),
      (after) => after.some((round) => round.signed > 0),
    );
    await assertStopsCleanly(daemon);
  });

  it('still run while an entry waits for its anchor line, and write it once the file can be written', async function () {
    const daemon = await startFastRounds();
    await storeAnchored(daemon, '921', 1);
    // a link at the anchor's path: its append (O_NOFOLLOW) fails, and the entry waits unanchored
    const file = anchorFile();
    renameSync(file, `${file}.aside`);
    symlinkSync('/dev/null', file);
    assert.equal((await ingest(daemon.url, hostLine('922'), 'native')).status, 200);
    // the rounds go on though nothing is written: the writes the entry set off end within a few rounds
    await awaitLogged(daemon, unanchoredLog, 10);
    rmSync(file);
    renameSync(`${file}.aside`, file);
    await eventually(
      'the second entry anchored',
      () => anchored(file),
      (lines) => lines === 2,
    );
    await assertStopsCleanly(daemon);
  });

  it('still run with host retention, which removes events as they age though nothing is written', async function () {
    const daemon = await startFastRounds(['--retain-host-events-age', '2s']);
    await storeAnchored(daemon, '931', 1);
    // removed 2 s after its capture, by a round no write set off (theirs end within a second)
    await awaitLogged(daemon, 'host events retained');
    await assertStopsCleanly(daemon);
  });
});

/** The daemon's log line when a host chain entry's anchor line could not be appended. */
const unanchoredLog = 'the host chain anchor could not be written; the next round tries again';

/** A native event of host cgroup `cgroup` (no binding names it), captured now. */
function hostLine(cgroup: string): string {
  return nativeLine({ timestamp: new Date().toISOString(), cgroup_id: cgroup, comm: 'idle', pid: 7100 });
}
