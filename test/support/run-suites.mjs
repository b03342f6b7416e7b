// `npm run test:unit`: every test file under dist/test. The files that start the eBPF sensor run
// one after another, alone: a sensor captures the whole host, so a test running beside it would be
// seen in its store (a Go toolchain building for another test is found as a Go binary). Every other
// file runs in mocha's parallel mode, three more at once than there are cores. One closing line sums both.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
if (files.length === 0) {
  const which = argv.length === 0 ? ' (is dist/ built?)' : ` matches ${argv.join(', ')}`;
  process.stderr.write(`run-suites: no test file under dist/test${which}\n`);
  process.exit(2);
}
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
// the longest files first, by their times in the last fresh-clone CI (quickstart 234 s, then 95 to
// 50 s; most take seconds), so none is left to run by itself at the end of the parallel phase while
// the other jobs sit idle. Not sensor/tls nor sensor/x86-instructions: they build Go programs, and
// late in the phase they find Go's build cache warmed beside it (warmGoCache) instead of compiling.
const longest = [
  'readme/quickstart',
  'sensor/sensor',
  'provenance/verify',
  'cli/ingest',
  'telemetry/telemetry-queries',
  'agents/agent-harness',
  'security/audit-associations',
  'provenance/host-retention',
  'provenance/checkpoints',
  'agents/hook-client',
  'agents/agents-e2e',
  'cli/readme-example',
  'cli/bin-link',
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

/**
 * Warms Go's build cache beside the parallel phase (test/support/warm-go-cache.ts, at the lowest
 * priority) when a file to run builds Go programs: on a fresh machine each toolchain compiles its
 * standard library once (~38 s of CPU), in the CPU the tests leave idle rather than in a test, and
 * never in the alone phase. `wait()` resolves once it ended, with a line saying how long it took
 * and how long it was waited for; what is left of it then runs at the usual priority (as root), as
 * the tests' own builds would have: a host busy with other work would starve it at the lowest.
 */
function warmGoCache() {
  const script = join(root, 'dist', 'test', 'support', 'warm-go-cache.js');
  const buildsGo = (file) => readFileSync(join(root, file), 'utf8').includes('/go-toolchain.js');
  if (!existsSync(script) || !files.some(buildsGo)) return { wait: async () => [] };
  const started = performance.now();
  // a process group of its own: its priority is raised whole, compilers and all
  const child = spawn(process.execPath, [script], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let took;
  const ended = new Promise((resolve) => {
    child.on('close', resolve);
    child.on('error', resolve);
  }).then(() => (took = (performance.now() - started) / 1000));
  return {
    async wait() {
      const waitFrom = performance.now();
      if (took === undefined) spawnSync('renice', ['-n', '0', '-g', String(child.pid)], { stdio: 'ignore' });
      await ended;
      const waited = (performance.now() - waitFrom) / 1000;
      return [
        `  Go cache warm-up: ${took.toFixed(1)} s, ${waited.toFixed(1)} s of it after the parallel phase`,
      ];
    },
  };
}

/** Each phase's wall time in seconds, by name: what CI's minutes go to. */
const phaseSeconds = {};
/** Each phase's line of host CPU, by name: whether its cores were busy (cut work) or idle (reorder). */
const phaseCpu = {};

/** The host's CPU time so far, in seconds (/proc/stat's first line): busy, of it at nice > 0, and all. */
function hostCpu() {
  if (!existsSync('/proc/stat')) return undefined;
  // user nice system idle iowait irq softirq steal, in clock ticks (USER_HZ, 100 on Linux)
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const all = ticks.reduce((sum, tick) => sum + tick, 0);
  return { busy: (all - ticks[3] - ticks[4]) / 100, niced: ticks[1] / 100, all: all / 100 };
}

/** "host CPU 1.62 of 2 cores busy (0.10 at low priority)" between two hostCpu() readings. */
function cpuLine(from, to) {
  if (from === undefined || to === undefined || to.all === from.all) return '';
  const cores = availableParallelism();
  const share = (seconds) => ((seconds / (to.all - from.all)) * cores).toFixed(2);
  return `, host CPU ${share(to.busy - from.busy)} of ${cores} cores busy (${share(to.niced - from.niced)} at low priority)`;
}

/**
 * Runs one mocha over `list`; resolves to its exit code. Not spawnSync: the warm-up's end must be
 * seen when it happens (its time), not once the phase is over.
 */
function run(phase, list, extra) {
  if (list.length === 0) return Promise.resolve(0);
  const started = performance.now();
  const cpuFrom = hostCpu();
  const child = spawn(process.execPath, [mocha, ...common, ...extra, ...list], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (status) => {
      phaseSeconds[phase] = (performance.now() - started) / 1000;
      phaseCpu[phase] = cpuLine(cpuFrom, hostCpu());
      resolve(status ?? 1);
    });
  });
}

// three jobs more than cores: most tests wait (a daemon starting, a subprocess, a poll), and the
// cores sat partly idle with fewer (cli/ on 2 cores, load 16 from other builds: 481 s with 2 jobs,
// 394 s with 4; telemetry/ at load 11-16: 116 and 111 s with 4 jobs, 85 and 101 s with 5, 100 s
// with 6; the 2-core fresh-clone CI's parallel phase used 1.4 cores with 4)
const jobs = availableParallelism() + 3;
const goCache = warmGoCache();
const parallelCode = await run('parallel', together, ['--parallel', '--jobs', String(jobs)]);
// no compiler may run beside the alone phase's sensors, which capture the host
const goCacheLines = await goCache.wait();
const codes = [parallelCode, await run('alone', alone, [])];
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
const lines = Object.entries(phaseSeconds).map(
  ([phase, s]) => `  ${phase} phase: ${s.toFixed(1)} s${phaseCpu[phase]}`,
);
lines.push(...goCacheLines);
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
