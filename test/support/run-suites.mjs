// `npm run test:unit`: every test file under dist/test. The files that start the eBPF sensor run
// one after another, alone: a sensor captures the whole host, so a test running beside it would be
// seen in its store (a Go toolchain building for another test is found as a Go binary). Every other
// file runs in mocha's parallel mode, two more at once than there are cores. One closing line sums both.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const testDir = join(root, 'dist', 'test');
const argv = process.argv.slice(2);
const files = readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .map((file) => join('dist', 'test', file))
  .filter((file) => argv.length === 0 || argv.some((wanted) => file.includes(wanted)))
  .sort();
// a daemon with its sensor on, or the sensor addon loaded by the test itself; not `no-sensor: true`
// nor a quoted 'sensor: true' (a config file's text: test/daemon/config-file ran alone for them)
const startsSensor = (text) => /(?<![-'"\w])sensor: true\b|\bloadSensorAddon\(/.test(text);
// A file whose every sensor captures only the agents it watches (`--capture agents`, the daemon's
// default) says so on a line of its own, and runs beside the others: what they run is filtered out
// in the kernel, never stored in its store, and it starts no sensor that captures the host.
const agentsOnly = (text) => /^\/\/ run-suites: capture agents only\b/m.test(text);
const runsAlone = (file) => {
  const text = readFileSync(join(root, file), 'utf8');
  return startsSensor(text) && !agentsOnly(text);
};
const alone = files.filter(runsAlone);
// the longest files first (minutes each, then agents-e2e's minute; the rest take seconds), so
// none is left to run by itself at the end of the parallel phase while the other jobs sit idle
const longest = [
  'readme/quickstart',
  'cli/readme-example',
  'agents/agent-harness',
  'cli/bin-link',
  'agents/agents-e2e',
];
const rank = (file) => {
  const index = longest.findIndex((name) => file.includes(`/${name}.test.js`));
  return index === -1 ? longest.length : index;
};
const together = files.filter((file) => !runsAlone(file)).sort((a, b) => rank(a) - rank(b));

const countsFile = join(tmpdir(), `provd-test-counts-${process.pid}.jsonl`);
rmSync(countsFile, { force: true });
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const common = ['--no-config', '--reporter', './test/support/summary-reporter.cjs', '--timeout', '30000'];
const env = { ...process.env, PROVD_TEST_COUNTS_FILE: countsFile };

/** Each phase's wall time in seconds, by name: what CI's minutes go to. */
const phaseSeconds = {};

/** Runs one mocha over `list`; its exit code. */
function run(phase, list, extra) {
  if (list.length === 0) return 0;
  const started = performance.now();
  const { status } = spawnSync(process.execPath, [mocha, ...common, ...extra, ...list], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  phaseSeconds[phase] = (performance.now() - started) / 1000;
  return status ?? 1;
}

// two jobs more than cores: most tests wait (a daemon starting, a subprocess, a poll), and a core
// sat idle with one job per core (cli/ on 2 cores, load 16 from other builds: 481 s with 2 jobs,
// 394 s with 4, for 194 and 202 CPU seconds)
const jobs = availableParallelism() + 2;
const codes = [run('parallel', together, ['--parallel', '--jobs', String(jobs)]), run('alone', alone, [])];
const totals = { passes: 0, failures: 0, pending: 0 };
const msByFile = {};
let runs = 0;
for (const line of readFileSync(countsFile, 'utf8').split('\n').filter(Boolean)) {
  const counts = JSON.parse(line);
  for (const key of Object.keys(totals)) totals[key] += counts[key];
  Object.assign(msByFile, counts.msByFile);
  runs++;
}
rmSync(countsFile, { force: true });
// where the time went: each phase's wall time, then the files whose tests and hooks took longest
// (a parallel file's time overlaps others'; PROVD_TEST_TIMES=all lists every file)
const listed = process.env.PROVD_TEST_TIMES === 'all' ? Infinity : 25;
const byTime = Object.entries(msByFile).sort((a, b) => b[1] - a[1]);
const lines = Object.entries(phaseSeconds).map(([phase, s]) => `  ${phase} phase: ${s.toFixed(1)} s`);
for (const [file, ms] of byTime.slice(0, listed)) {
  const phase = alone.some((name) => file.endsWith(name)) ? 'alone' : 'parallel';
  lines.push(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${phase.padEnd(8)}  ${relative(root, file)}`);
}
process.stdout.write(`\ntest time:\n${lines.join('\n')}\n`);
// a mocha that died before its end (a crash, a signal) counts as a failure even with no counts
const crashed = codes.filter((code) => code !== 0).length > 0 && totals.failures === 0 ? 1 : 0;
const expected = [together, alone].filter((list) => list.length > 0).length;
const missing = Math.max(0, expected - runs);
process.stdout.write(
  `\n${totals.passes} passed, ${totals.failures + crashed + missing} failed, ${totals.pending} skipped\n`,
);
process.exit(codes.some((code) => code !== 0) || missing > 0 ? 1 : 0);
