/**
 * The shared ending of every benchmark: a watchdog that bounds the whole run, SIGINT/SIGTERM
 * handling, guard failures reported on stderr, children stopped and scratch removed on every path.
 */
import { killChildProcessesSync } from './kill-children.js';
import { writeRecordedRatios } from './ratio-guard.js';
import { describeHost } from './host.js';

export interface BenchMain {
  /** Prefix of every stderr line, e.g. "ingest.bench". */
  name: string;
  deadlineMs: number;
  isGuard: boolean;
  /** Runs the measurements (printing their JSON lines) and returns why the guard fails, if it does. */
  run: () => Promise<string[]>;
  /** Removes scratch files; runs on every path. */
  cleanup: () => void;
}

/** Runs a benchmark to its exit code and exits with it. */
export async function benchMain(bench: BenchMain): Promise<never> {
  const abort = (reason: string): never => {
    process.stderr.write(`${bench.name}: aborted: ${reason}\n`);
    killChildProcessesSync();
    bench.cleanup();
    process.exit(1);
  };
  process.once('SIGINT', () => abort('interrupted'));
  process.once('SIGTERM', () => abort('terminated'));
  const watchdog = setTimeout(() => abort(`run exceeded ${bench.deadlineMs} ms`), bench.deadlineMs);
  let code = 1;
  try {
    const failures = await bench.run();
    for (const failure of failures) {
      process.stderr.write(`${bench.name}: ${bench.isGuard ? 'guard failed' : 'warning'}: ${failure}\n`);
    }
    code = bench.isGuard && failures.length > 0 ? 1 : 0;
    if (failures.length === 0) writeRecordedRatios(recordingNote());
  } catch (error) {
    process.stderr.write(
      `${bench.name}: failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    killChildProcessesSync(); // a server whose start timed out has no handle to stop
  } finally {
    clearTimeout(watchdog);
    bench.cleanup();
  }
  // exit explicitly: a load generator or a half-closed socket must not keep a finished run alive
  process.exit(code);
}

/** Where and when ratios recorded by this run were measured. */
function recordingNote(): string {
  const { cpu, kernel, node } = describeHost();
  return `${new Date().toISOString().slice(0, 10)}: --short runs on ${cpu}, Linux ${kernel}, Node ${node}`;
}
