/**
 * `npm run bench:guard`: every benchmark's short run with `--guard`, one after another. A bench
 * whose guard fails runs once more before the guard fails CI: on a shared 2-core host one burst of
 * other work can sink one run's ratio, while a real regression sinks both.
 *
 * `npm run bench:record` runs each bench three times with `--record` instead and writes the lowest
 * of each ratio into bench/baselines.json (see support/ratio-guard.ts): a floor that a quiet host
 * clears and a real regression does not. Record when a change is meant to move a ratio, and say why
 * in its commit.
 *
 * `--only a,b` runs only the named benches (e.g. `--only ingest,http`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBaselines, writeBaselines } from './support/ratio-guard.js';

const benches = [
  'http',
  'ingest',
  'bind',
  'parse',
  'graph',
  'timeline',
  'sensor',
  'tls',
  'gate',
  'security',
  'search',
  'ai',
  'verify-host',
  'hooks',
  'hook-client',
] as const;

const argv = process.argv.slice(2);
const isRecording = argv.includes('--record');
/** Runs per bench when recording; the lowest ratio of them is kept. */
const recordRounds = 3;
const onlyAt = argv.indexOf('--only');
const only = onlyAt < 0 ? null : new Set((argv[onlyAt + 1] ?? '').split(','));
if (only !== null) {
  const unknown = [...only].filter((name) => !(benches as readonly string[]).includes(name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench guard: no bench named ${unknown.join(', ')}; benches: ${benches.join(', ')}\n`,
    );
    process.exit(2);
  }
}

/** Runs one bench's short guarded run to its exit code, its output passed through. */
function runOnce(name: string, env: Record<string, string> = {}): number {
  const script = fileURLToPath(new URL(`./${name}.bench.js`, import.meta.url));
  const args = [script, '--short', '--guard', ...(isRecording ? ['--record'] : [])];
  const { status, signal } = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return status ?? (signal === null ? 1 : 128);
}

/** Records one bench: its rounds, each into a side file, then the lowest value of each ratio. */
function record(name: string): number {
  const sideFile = join(tmpdir(), `provd-bench-record-${process.pid}.json`);
  const lowest: Record<string, number> = {};
  let note = '';
  try {
    for (let round = 0; round < recordRounds; round++) {
      rmSync(sideFile, { force: true });
      const code = runOnce(name, { PROVD_BENCH_RECORD_FILE: sideFile });
      if (code !== 0) return code;
      if (!existsSync(sideFile)) return 0; // a bench that skipped (no root, no BTF) records nothing
      const side = JSON.parse(readFileSync(sideFile, 'utf8')) as {
        recorded: string;
        ratios: Record<string, number>;
      };
      note = side.recorded;
      for (const [key, value] of Object.entries(side.ratios))
        lowest[key] = Math.min(lowest[key] ?? value, value);
    }
  } finally {
    rmSync(sideFile, { force: true });
  }
  writeBaselines({ ...readBaselines(), recorded: `${note}, the lowest of ${recordRounds} runs` }, lowest);
  process.stderr.write(`bench guard: recorded ${Object.keys(lowest).length} ratios of ${name}\n`);
  return 0;
}

const failed: string[] = [];
/** Seconds since `from` (performance.now()), to one decimal: what each bench costs CI is measured, not guessed. */
const secondsSince = (from: number): string => ((performance.now() - from) / 1000).toFixed(1);
const guardStarted = performance.now();
for (const name of benches) {
  if (only !== null && !only.has(name)) continue;
  const started = performance.now();
  if (isRecording) {
    if (record(name) !== 0) failed.push(name);
    continue;
  }
  let code = runOnce(name);
  let runs = 1;
  if (code !== 0) {
    process.stderr.write(`bench guard: ${name} failed its guard; running it once more\n`);
    code = runOnce(name);
    runs++;
  }
  if (code !== 0) failed.push(name);
  process.stderr.write(
    `bench guard: ${name} took ${secondsSince(started)} s (${runs} run${runs > 1 ? 's' : ''})\n`,
  );
}
process.stderr.write(
  failed.length === 0
    ? `bench guard: every bench ${isRecording ? 'recorded' : 'passed'} in ${secondsSince(guardStarted)} s\n`
    : `bench guard: failed: ${failed.join(', ')}\n`,
);
process.exit(failed.length === 0 ? 0 : 1);
