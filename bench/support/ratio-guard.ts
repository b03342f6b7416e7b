/**
 * The guard every benchmark shares: each guarded figure is a ratio to a baseline measured in the
 * same run, oriented so that higher is better (our rate / the baseline's rate, or the baseline's
 * time / ours). bench/baselines.json records each ratio as measured when it was last accepted;
 * `--guard` fails a run whose ratio falls more than `tolerance` below its recorded value, and
 * `--record` writes the ratios of this run into the file instead (`npm run bench:record`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The recorded ratios, in the source tree (benches run compiled from dist/bench/). */
export const baselinesPath = fileURLToPath(new URL('../../../bench/baselines.json', import.meta.url));

export interface Baselines {
  /** How far below its recorded value a ratio may fall, as a fraction (0.25: down to 0.75x). */
  tolerance: number;
  /** Where and how the ratios were recorded. */
  recorded: string;
  ratios: Record<string, number>;
}

const isRecording = process.argv.includes('--record');
/** The ratios this run measured, by key, in the order they were measured. */
const measured = new Map<string, number>();
let loaded: Baselines | null = null;

function baselines(): Baselines {
  loaded ??= readBaselines();
  return loaded;
}

/**
 * Checks one ratio against its recorded value; returns why it fails the guard (empty when it
 * passes, or while recording). `what` says in words what the ratio compares.
 */
export function guardRatio(key: string, ratio: number | null, what: string): string[] {
  if (ratio === null || !Number.isFinite(ratio) || ratio <= 0) return [`${key}: no ratio measured (${what})`];
  measured.set(key, ratio);
  if (isRecording) return [];
  const { ratios, tolerance } = baselines();
  const recorded = ratios[key];
  if (recorded === undefined)
    return [`${key}: no recorded ratio in bench/baselines.json (run npm run bench:record)`];
  const floor = recorded * (1 - tolerance);
  return ratio < floor
    ? [`${key}: ${round(ratio)}x (${what}), more than ${tolerance * 100}% below the recorded ${recorded}x`]
    : [];
}

/**
 * With --record, merges this run's ratios into bench/baselines.json, or writes them alone to the
 * file PROVD_BENCH_RECORD_FILE names (bench/guard.ts keeps the lowest of several runs that way).
 * Called once a bench finishes without failures.
 */
export function writeRecordedRatios(note: string): void {
  if (!isRecording || measured.size === 0) return;
  const ratios = Object.fromEntries([...measured].map(([key, ratio]) => [key, round(ratio)]));
  const sideFile = process.env['PROVD_BENCH_RECORD_FILE'];
  if (sideFile !== undefined && sideFile !== '') {
    writeFileSync(sideFile, JSON.stringify({ recorded: note, ratios }));
    return;
  }
  writeBaselines({ ...baselines(), recorded: note }, ratios);
  process.stderr.write(`recorded ${measured.size} ratios in ${baselinesPath}\n`);
}

/** Writes bench/baselines.json with `ratios` merged over the ones it holds, sorted by key. */
export function writeBaselines(file: Baselines, ratios: Record<string, number>): void {
  const merged = Object.fromEntries(
    Object.entries({ ...file.ratios, ...ratios }).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(baselinesPath, `${JSON.stringify({ ...file, ratios: merged }, null, 2)}\n`);
}

/** The recorded file as it is on disk. */
export function readBaselines(): Baselines {
  return JSON.parse(readFileSync(baselinesPath, 'utf8')) as Baselines;
}

/** A ratio to three significant decimals. */
function round(ratio: number): number {
  return Number(ratio.toFixed(3));
}
