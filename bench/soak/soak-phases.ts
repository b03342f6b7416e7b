/**
 * Runs the chosen phases one after another. Fuzz, flood and slow share one daemon (seeded with
 * runs and events first), as a long-running daemon meets them all; kill and disk start their own,
 * on their own data dirs. Each phase is counted apart; the shared daemon must stop cleanly at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FailureLog } from './failure-log.js';
import type { FuzzContext } from './fuzz-request.js';
import { KnownValues } from './known-values.js';
import { loadCorpus } from './ndjson-corpus.js';
import { runDisk } from './phase-disk.js';
import { runFlood } from './phase-flood.js';
import { runFuzz } from './phase-fuzz.js';
import { runKill } from './phase-kill.js';
import { runSlow } from './phase-slow.js';
import { PhaseTally, type PhaseFigures } from './phase-tally.js';
import { makeRecordCwd, seedStore } from './seed-store.js';
import { SoakApi } from './soak-api.js';
import { SoakDaemon } from './soak-daemon.js';
import type { PhaseName, SoakOptions } from './soak-options.js';
import type { PhaseResults } from './soak-totals.js';

/** What every phase gets from the run. */
export interface SoakRun {
  options: SoakOptions;
  token: string;
  out: string;
  failures: FailureLog;
  /** Undo steps run on every way out, last first. */
  cleanups: (() => void)[];
}

/** The daemon fuzz, flood and slow share, with what the fuzzer knows of its store. */
interface SharedDaemon {
  daemon: SoakDaemon;
  context: FuzzContext;
}

/** A fresh data dir, removed at the end unless --keep. */
export function dataDirFor(run: SoakRun, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `provd-soak-${name}-`));
  if (!run.options.keep) run.cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startShared(run: SoakRun): Promise<SharedDaemon> {
  const recordCwd = makeRecordCwd();
  run.cleanups.push(() => rmSync(recordCwd, { recursive: true, force: true }));
  // the daemon's own directory is where a record without a cwd runs: a small one, not this checkout
  process.chdir(recordCwd);
  const daemon = new SoakDaemon({
    dataDir: dataDirFor(run, 'main'),
    token: run.token,
    sensor: run.options.sensor,
  });
  await daemon.start();
  run.cleanups.push(() => void daemon.stop());
  const known = new KnownValues();
  const api = new SoakApi(
    () => daemon.port,
    () => run.token,
  );
  await seedStore(api, known, recordCwd);
  api.close();
  return { daemon, context: { known, corpus: loadCorpus(), token: run.token, recordCwd } };
}

/** Runs every chosen phase and returns their figures. */
export async function runPhases(run: SoakRun): Promise<PhaseResults> {
  const results: PhaseResults = { figures: {}, latencies: [] };
  let shared: SharedDaemon | undefined;
  let lastShared: PhaseFigures | undefined;
  for (const phase of run.options.phases) {
    process.stderr.write(`soak: ${phase}: starting\n`);
    const tally = new PhaseTally(phase, run.failures);
    const usesShared = phase === 'fuzz' || phase === 'flood' || phase === 'slow';
    if (usesShared) {
      shared ??= await startShared(run);
      shared.daemon.resetPeak();
      tally.daemon = shared.daemon;
    }
    const crashesBefore = tally.daemon?.crashes ?? 0;
    try {
      await runPhase(phase, run, shared, tally);
    } catch (error) {
      // a phase that cannot go on is a failure of the run, not the end of it
      tally.fail(
        null,
        'phase_aborted',
        error instanceof Error ? (error.stack ?? error.message) : String(error),
      );
    }
    const daemon = tally.daemon;
    if (daemon !== undefined) {
      const lines = daemon.errorLines().map((line) => JSON.stringify(line) + '\n');
      writeFileSync(join(run.out, `${phase}-daemon-errors.ndjson`), lines.join(''));
    }
    const figures = tally.finish(daemon?.readPeak() ?? null, (daemon?.crashes ?? 0) - crashesBefore);
    results.figures[phase] = figures;
    results.latencies.push(...tally.latencies);
    if (usesShared) lastShared = figures;
    process.stderr.write(`soak: ${phase}: ${JSON.stringify(figures)}\n`);
  }
  if (shared !== undefined) {
    const code = await shared.daemon.stop();
    if (code !== 0 && lastShared !== undefined) {
      lastShared.failures++;
      run.failures.add(
        'shutdown',
        'unclean_stop',
        `the shared daemon answered SIGTERM with exit ${code}`,
        null,
      );
    }
  }
  return results;
}

/** Runs one phase; kill and disk set `tally.daemon` to their own daemon as they start it. */
function runPhase(
  phase: PhaseName,
  run: SoakRun,
  shared: SharedDaemon | undefined,
  tally: PhaseTally,
): Promise<void> {
  const { seed } = run.options;
  switch (phase) {
    case 'fuzz':
      return runFuzz(shared!.daemon, shared!.context, { seed, ...run.options.fuzz }, tally);
    case 'flood':
      return runFlood(shared!.daemon, { seed, ...run.options.flood }, tally);
    case 'slow':
      return runSlow(shared!.daemon, { seed, ...run.options.slow }, tally);
    case 'kill':
      return runKill(run, tally);
    case 'disk':
      return runDisk(run, tally);
  }
}
