/**
 * The disk phase: the daemon's data dir sits on a small tmpfs the soak mounts (root only; without
 * root the phase says so and skips). Producers ingest until the disk is full; from then on the
 * daemon must answer clearly (200, or 503 `unavailable` with Retry-After: a full disk is storage
 * unusable, as the contract documents), survive a SIGKILL and a restart on the full disk, lose
 * nothing it acknowledged, and serve again once space is freed, without a restart.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventLedger, type LedgerBatch } from './event-ledger.js';
import { deliver } from './ingest-producer.js';
import type { PhaseTally } from './phase-tally.js';
import { SoakApi } from './soak-api.js';
import { SoakDaemon } from './soak-daemon.js';
import type { SoakRun } from './soak-phases.js';
import { settleLedger } from './settle-ledger.js';
import { userQueries } from './phase-flood.js';

const run = 'soak-disk';
const cgroup = '7201';
const mib = 1024 * 1024;
/** What the store may fill before the disk is full: the rest of the tmpfs is the filler's. */
const storeMib = 24;
/** How long the daemon may take to serve again once space is freed. */
const recoverMs = 60_000;

/** Mounts a tmpfs of `bytes`; returns its directory, or why it cannot be done here. */
function mountTmpfs(bytes: number): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0)
    return { skip: 'mounting a tmpfs needs root: run the soak as root for the disk phase' };
  const dir = mkdtempSync(join(tmpdir(), 'provd-soak-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return {
      skip: `mount -t tmpfs failed: ${error instanceof Error ? error.message.trim() : String(error)}`,
    };
  }
}

/** Free space under `dir`, and the size of each file of the data dir below it, in MiB. */
function freeMib(dir: string): string {
  const stats = statfsSync(dir);
  const files = readdirSync(join(dir, 'data')).map(
    (name) => `${name} ${(statSync(join(dir, 'data', name)).size / mib).toFixed(1)}`,
  );
  return `${Math.round((stats.bavail * stats.bsize) / mib)} (${files.join(', ')})`;
}

function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  rmSync(dir, { recursive: true, force: true });
}

/** Runs the disk phase on a daemon of its own (none when the phase is skipped). */
export async function runDisk(soak: SoakRun, tally: PhaseTally): Promise<void> {
  const { options } = soak;
  const mounted = mountTmpfs(options.disk.mib * mib);
  if ('skip' in mounted) {
    process.stderr.write(`soak: disk: skipped: ${mounted.skip}\n`);
    tally.note('skipped', mounted.skip);
    return;
  }
  soak.cleanups.push(() => unmount(mounted.dir));
  // the store fills what the filler leaves (24 MiB); freeing the filler gives it room to checkpoint
  const filler = join(mounted.dir, 'filler');
  writeFileSync(filler, Buffer.alloc((options.disk.mib - storeMib) * mib, 1));
  const dataDir = join(mounted.dir, 'data');
  mkdirSync(dataDir);
  const daemon = new SoakDaemon({ dataDir, token: soak.token, sensor: options.sensor });
  tally.daemon = daemon;
  soak.cleanups.push(() => void daemon.kill9());
  await daemon.start();
  const api = new SoakApi(
    () => daemon.port,
    () => soak.token,
  );
  await api.post('/v1/telemetry/bind', { run_id: run, tool_call_id: 'tc', cgroup_id: cgroup });
  const ledger = new EventLedger(run, `d${options.seed}`);
  const origin = `disk seed=${options.seed}`;
  let full = false;
  const onUnavailable = (retryAfter: string | undefined, message: string): void => {
    full = true;
    if (retryAfter === undefined) tally.fail(null, 'no_retry_after', `503 without Retry-After: ${message}`);
  };

  // fill the disk: batches of poorly compressible events until the daemon says it is full
  const pending: LedgerBatch[] = [];
  for (let n = 0; !full && n < 2_000; n++) {
    const batch = ledger.batch(0, n, 2_000, cgroup, 400);
    const stored = await deliver(api, ledger, batch, tally, {
      wellFormed: false,
      mayBeUnavailable: true,
      giveUp: () => full,
      onUnavailable,
      origin,
    });
    if (!stored) pending.push(batch);
  }
  if (!full) tally.fail(null, 'disk_never_full', `${options.disk.mib} MiB never filled up`);
  process.stderr.write(
    `soak: disk: full after ${ledger.acknowledgedCount} events acknowledged (${freeMib(mounted.dir)} MiB free)\n`,
  );

  await askWhileFull(api, tally, origin);
  // a crash on a full disk, and a start on it: the daemon must come up and say what is wrong
  await daemon.kill9();
  tally.note('killed_full', `${freeMib(mounted.dir)} MiB free after a SIGKILL on the full disk`);
  try {
    await daemon.start();
  } catch (error) {
    tally.fail(
      null,
      'no_start_when_full',
      error instanceof Error ? error.message.slice(0, 500) : String(error),
    );
  }
  if (daemon.alive) await askWhileFull(api, tally, origin);

  rmSync(filler);
  tally.note('space_freed', `${freeMib(mounted.dir)} MiB free after the filler was removed`);
  if (!daemon.alive) await daemon.start();
  if (!(await servesAgain(api)))
    tally.fail(null, 'no_recovery', `health not 200 within ${recoverMs} ms of space freed`);
  for (const batch of pending)
    await deliver(api, ledger, batch, tally, { wellFormed: false, mayBeUnavailable: true, origin });
  for (let n = 0; n < 3; n++)
    await deliver(api, ledger, ledger.batch(1, n, 500, cgroup), tally, { wellFormed: true, origin });
  await settleLedger(api, ledger, tally, 'disk');
  tally.note('space_left', `${freeMib(mounted.dir)} MiB free before the clean stop`);

  // and what was acknowledged is still there after a clean stop and a start
  const code = await daemon.stop();
  if (code !== 0)
    tally.fail(
      null,
      'unclean_stop',
      `the daemon answered SIGTERM with exit ${code} after the disk was freed`,
    );
  await daemon.start();
  const after = await ledger.check(api);
  if (after.lost > 0)
    tally.fail(null, 'lost_after_restart', `${after.lost} acknowledged events gone after a restart`);
  api.close();
  await daemon.stop();
  soak.cleanups.pop();
  unmount(mounted.dir);
  soak.cleanups.pop();
}

/** Asks the user's queries and an ingest on a full disk: 200 or 503 `unavailable`, never another 5xx. */
async function askWhileFull(api: SoakApi, tally: PhaseTally, origin: string): Promise<void> {
  for (const target of userQueries(run, [run, run])) {
    const request = api.getRequest(target);
    const outcome = await api.send(request, 30_000);
    tally.count({
      request,
      outcome,
      wellFormed: true,
      mayBeUnavailable: true,
      origin: `${origin} while full`,
    });
    if (!('answer' in outcome)) api.client.close();
  }
}

/** Polls health until it answers 200; false when it does not within the deadline. */
async function servesAgain(api: SoakApi): Promise<boolean> {
  const until = Date.now() + recoverMs;
  while (Date.now() < until) {
    const outcome = await api.send(api.getRequest('/v1/health'), 5_000);
    if ('answer' in outcome && outcome.answer.status === 200) return true;
    if (!('answer' in outcome)) api.client.close();
    await sleep(500);
  }
  return false;
}
