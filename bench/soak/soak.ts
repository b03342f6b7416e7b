/**
 * `npm run soak`: runs the soak phases against real `provd daemon` processes (built dist/), each
 * with its own data dir, port and token, and prints one JSON line of figures on stdout: per phase
 * and in total, requests, 5xx, events acknowledged, lost and duplicated, the daemon's peak RSS and
 * the p99 of well-formed requests. Exits 1 on any unexpected 5xx, loss, duplicate, crash, contract
 * breach or well-formed request unanswered within 5 s; every failure is in failures.ndjson with
 * the request that caused it. Progress goes to stderr. Not part of `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeHost } from '../support/host.js';
import { killChildProcessesSync } from '../support/kill-children.js';
import { FailureLog } from './failure-log.js';
import { parseOptions, usage, type PhaseName, type SoakOptions } from './soak-options.js';
import { runPhases, type SoakRun } from './soak-phases.js';
import { totalOf } from './soak-totals.js';

/** Cleanups to run on every way out (unmounts, data dirs). */
const cleanups: (() => void)[] = [];

function runCleanups(): void {
  for (const cleanup of cleanups.splice(0).reverse())
    try {
      cleanup();
    } catch (error) {
      process.stderr.write(
        `soak: cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
}

/** The budget of the whole run: each phase's planned time, generously, plus starts and checks. */
function deadlineMs(options: SoakOptions): number {
  const budget: Record<PhaseName, number> = {
    fuzz: options.fuzz.requests === null ? options.fuzz.seconds * 2 : options.fuzz.requests / 5,
    kill: options.kill.kills * 30,
    flood: options.flood.seconds * 3,
    disk: 600,
    slow: options.slow.seconds * 3,
  };
  return (120 + options.phases.reduce((sum, phase) => sum + budget[phase], 0)) * 1000;
}

async function main(): Promise<number> {
  if (process.argv.includes('--help')) {
    process.stdout.write(usage);
    return 0;
  }
  let options: SoakOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const out = options.out ?? mkdtempSync(join(tmpdir(), `provd-soak-${options.seed}-`));
  mkdirSync(out, { recursive: true });
  const token = `soak-${randomBytes(18).toString('base64url')}`;
  const failures = new FailureLog(out, token);
  process.stderr.write(
    `soak: seed=${options.seed} phases=${options.phases.join(',')} sensor=${options.sensor} out=${out}\n`,
  );
  const run: SoakRun = { options, token, out, failures, cleanups };
  const watchdog = setTimeout(() => {
    process.stderr.write(`soak: aborted: the run exceeded ${deadlineMs(options)} ms\n`);
    killChildProcessesSync();
    runCleanups();
    process.exit(1);
  }, deadlineMs(options));
  try {
    const phases = await runPhases(run);
    await failures.close();
    const total = totalOf(phases);
    const ok = total.failures === 0;
    const line = {
      soak: 'provd',
      seed: options.seed,
      sensor: options.sensor,
      ok,
      host: describeHost(),
      total,
      phases: phases.figures,
      out,
    };
    process.stdout.write(JSON.stringify(line) + '\n');
    writeFileSync(join(out, 'figures.json'), JSON.stringify(line) + '\n');
    for (const summary of failures.summary()) process.stderr.write(`soak: ${summary}\n`);
    process.stderr.write(
      `soak: ${ok ? 'passed' : `FAILED: ${total.failures} failures`} (seed ${options.seed}; details in ${failures.file})\n`,
    );
    return ok ? 0 : 1;
  } finally {
    clearTimeout(watchdog);
    runCleanups();
  }
}

process.once('SIGINT', () => {
  process.stderr.write('soak: interrupted\n');
  killChildProcessesSync();
  runCleanups();
  process.exit(130);
});

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    killChildProcessesSync();
    runCleanups();
    process.exit(1);
  },
);
