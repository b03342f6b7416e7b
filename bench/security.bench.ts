/**
 * Security queries benchmark (`npm run bench:security`; `npm run bench:guard` runs it with --short
 * --guard): the security answers on a store of 10,000,000 events (100,000 with --short), each with
 * p50 and p99. One run, 5% of its events judged risky by the built-in policy: the first and a deep
 * page of its risks, its responses, its audit associations and every run's, its signals; a sparse
 * run whose few risks sit behind all of those events; and the deviations of a run from a baseline
 * learned from another (bench/support/baseline-workload.ts), with the time learning took. The
 * baseline, in the same run, is the first page of GET /v1/telemetry/events of the dense run: one
 * keyset page over the same rows. The risks pages and that events page carry their p99 as a
 * ratio to the 20 ms target of issue 24 (p99_to_target).
 *
 * `--guard` fails the run when the baseline's p50 over an answer's falls more than 25% below the
 * ratio recorded in bench/baselines.json.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { deviationsPaths, learnBaseline, seedBaselineRuns } from './support/baseline-workload.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { deepCursor, measureGets, p99Target } from './support/query-latency.js';
import { fillStoreBySql } from './support/store-fill.js';
import { withBodyType } from '../test/support/http.js';

const argv = process.argv.slice(2);
const isShort = argv.includes('--short');
const isGuard = argv.includes('--guard');
const storeArg = argv.indexOf('--store');
/** `--store DIR`: keep the filled data dir in DIR, and reuse it when it holds one already. */
const keptDir = storeArg < 0 ? null : argv[storeArg + 1]!;
const events = isShort ? 100_000 : 10_000_000;
const deadlineMs = isShort ? 180_000 : 1_800_000;
/** Timed requests per series (see timeline.bench.ts: fewer make p99 only the maximum; --guard compares p50s). */
const repeats = isShort ? (isGuard ? 50 : 100) : 500;
/** Untimed requests before each timed series: the first after a start pay for JIT and cold buffers. */
const warmup = 3;
const host = describeHost();
const dataDir = keptDir ?? makeDataDir();
const runId = 'security-run';
const sparseRun = 'sparse-run';
const seeded = 10_000;

async function post(daemon: RunningDaemon, path: string, body: string): Promise<void> {
  const answer = await fetch(daemon.url + path, { method: 'POST', headers: withBodyType(path), body });
  if (answer.status !== 200) throw new Error(`seeding: ${path} answered HTTP ${answer.status}`);
}

/** `seeded` events of one cgroup over six minutes, one in 20 a risk (a secret read, a private connect, a ptrace). */
function eventLines(cgroup: string, count: number, everyRisky: number): string[] {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_v, i) => {
    const base = {
      timestamp: new Date(start + 1000 + i * 37).toISOString(),
      pid: 5000 + (i % 50),
      tgid: 5000 + (i % 50),
      ppid: 5000 + Math.floor((i % 50) / 2),
      comm: 'worker',
      cgroup_id: cgroup,
    };
    if (i % everyRisky !== everyRisky - 1)
      return JSON.stringify({
        ...base,
        event_type: i % 5 === 0 ? 'execve' : 'file_open',
        path: `/work/${i}`,
      });
    const risky = [
      { event_type: 'file_open', path: `/home/agent/.aws/credentials` },
      { event_type: 'network_connect', dst_ip: '10.0.0.7', dst_port: 5432 },
      { event_type: 'ptrace', request: 'PTRACE_ATTACH', target_pid: 1 },
    ][Math.floor(i / everyRisky) % 3]!;
    return JSON.stringify({ ...base, ...risky });
  });
}

/** The dense run, bound to its cgroup, with `seeded` events: what the fill copies. */
async function seed(daemon: RunningDaemon): Promise<void> {
  const bind = { run_id: runId, tool_call_id: 'tc', cgroup_id: '4242', started_at: '2026-01-01T00:00:00Z' };
  await post(daemon, '/v1/telemetry/bind', JSON.stringify(bind));
  await post(daemon, '/v1/telemetry/ingest?format=native', eventLines('4242', seeded, 20).join('\n'));
}

/** A run whose 30 events (3 risky) are the last of the store, after every copy. */
async function seedSparse(daemon: RunningDaemon): Promise<void> {
  const bind = {
    run_id: sparseRun,
    tool_call_id: 'tc',
    cgroup_id: '5151',
    started_at: '2026-01-01T00:00:00Z',
  };
  await post(daemon, '/v1/telemetry/bind', JSON.stringify(bind));
  await post(daemon, '/v1/telemetry/ingest?format=native', eventLines('5151', 30, 10).join('\n'));
}

async function run(): Promise<string[]> {
  const filled = existsSync(join(dataDir, 'provd.duckdb'));
  if (!filled) {
    const seeding = await startDaemon({ dataDir });
    await seed(seeding);
    await seedBaselineRuns(seeding.url);
    await seeding.stop();
    await fillStoreBySql(join(dataDir, 'provd.duckdb'), events);
  }
  const daemon = await startDaemon({ dataDir });
  const failures: string[] = [];
  try {
    if (!filled) await seedSparse(daemon);
    const learned = await learnBaseline(daemon.url, 'bench-agent');
    process.stdout.write(
      JSON.stringify({
        name: 'security.baseline.learn',
        events,
        ms: Math.round(learned.ms * 10) / 10,
        ...host,
      }) + '\n',
    );
    const risks = `/v1/security/risks?run=${runId}`;
    const deepRisks = await deepCursor(daemon, risks, isShort ? 1 : 50);
    const cases = [
      { name: 'risks.first_page', path: risks },
      { name: 'risks.deep_page', path: `${risks}&cursor=${deepRisks}` },
      { name: 'risks.sparse_run', path: `/v1/security/risks?run=${sparseRun}` },
      { name: 'responses.first_page', path: `/v1/security/responses?run=${runId}` },
      { name: 'audit_associations.run', path: `/v1/telemetry/audit-associations?run=${runId}` },
      { name: 'audit_associations.every_run', path: '/v1/telemetry/audit-associations?limit=100' },
      { name: 'signals', path: `/v1/signals?run=${runId}` },
      ...deviationsPaths('bench-agent'),
    ];
    // --guard interleaves the series (query-latency.ts): their ratios to the baseline are what it checks
    const measured = await measureGets(
      daemon,
      [`/v1/telemetry/events?run=${runId}`, ...cases.map(({ path }) => path)],
      repeats,
      warmup,
      isGuard,
    );
    const base = measured[0]!;
    process.stdout.write(
      JSON.stringify({
        name: 'security.baseline.events_page',
        events,
        p50_ms: base.p50,
        p99_ms: base.p99,
        ...p99Target(base.p99),
        ...host,
      }) + '\n',
    );
    for (const [index, { name }] of cases.entries()) {
      const answer = measured[index + 1]!;
      const ratio = answer.p50 / base.p50;
      const result = {
        name: `security.${name}`,
        events,
        limit: 100,
        p50_ms: answer.p50,
        p99_ms: answer.p99,
        answer_bytes: answer.bytes,
        baseline_events_page_p50_ms: base.p50,
        ratio_to_baseline: Math.round(ratio * 1000) / 1000,
        ...(name.startsWith('risks.') ? p99Target(answer.p99) : {}),
        repeats,
        warmup_requests: warmup,
        ...host,
      };
      process.stdout.write(JSON.stringify(result) + '\n');
      failures.push(
        ...guardRatio(
          `security.${name}.p50/events_page`,
          base.p50 / answer.p50,
          "the events page's p50 over the answer's",
        ),
      );
    }
  } finally {
    await daemon.stop();
  }
  return failures;
}

await benchMain({
  name: 'security.bench',
  deadlineMs,
  isGuard,
  run,
  cleanup: () => {
    if (keptDir === null) removeDir(dataDir);
  },
});
