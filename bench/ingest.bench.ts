/**
 * Ingest benchmark (`npm run bench:ingest`; `npm run bench:ingest:guard` adds --short --guard).
 *
 * A deterministic mixed workload (1,000,000 native events, 100,000 with --short, over 50 runs, 45 of
 * them bound by cgroup before ingesting, so ~10% of the events go to the spool) is rendered into
 * ~4 MiB NDJSON chunks before any timing. Then, each printed as one JSON line on stdout:
 *
 * - `ingest.baseline.appender`: DuckDB's row-wise Appender on the same rows (the reference rate);
 * - `ingest.baseline.csv`: DuckDB's CSV reader loading the same rows from row files;
 * - `ingest.http`: the chunks POSTed to the daemon, a few in flight, each answered after its commit:
 *   sustained events/s, per-request latency, the daemon's CPU per event and peak RSS, `ratio_to_csv`
 *   and `cpu_efficiency_to_csv` (target: >= 0.5x the CSV load's rate, <= 8 µs of daemon CPU per event);
 * - `ingest.cli`: the same NDJSON through `provd ingest FILE` on the same daemon (skipped under
 *   --guard, or while the command does not exist);
 * - with `--queries` (default on for a full run, off for --short): the store is grown to 10,000,000
 *   events through HTTP (`ingest.http.grow`), or, when that would take over 5 minutes at the rate
 *   just measured, by copying the ingested rows in SQL with the daemon stopped (`store.fill`); then
 *   `query.events.first_page`, `query.events.deep_page` (250 pages in) and `query.windows` are
 *   timed over 200 sequential requests each.
 *
 * `--guard` fails the run when any ingest request failed, or when the pipeline's events/s or its
 * CPU per event (through the answers, and through the folds) as a ratio to DuckDB's CSV load of the
 * same rows in the same run falls more than 25% below the ratio recorded in bench/baselines.json.
 * Other options: `--events N`, `--in-flight N` (default 3), `--store-events N`, `--no-queries`,
 * `--hook-calls` (each bound run holds an open hook tool call: every commit goes through the tie),
 * `--fill auto|http|sql`, and `--cpu-prof DIR`, which runs the daemon under `node --cpu-prof` and
 * leaves one profile per thread in DIR.
 *
 * Every run prints where the HTTP phase's CPU went, through the folds and seals behind it
 * (support/ingest-profile.ts): per thread (`ingest.profile.threads`) and per statement of the store's
 * commits, folds and seals (`ingest.profile.store`). `--profile` adds the stages of each JS thread
 * (`ingest.profile.stages`): it runs the daemon under V8's profiler (whose own threads then count
 * under `other`) and skips the CLI and query phases.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cliPath, makeDataDir, removeDir, startDaemon, type RunningServer } from '../test/support/daemon.js';
import { databaseFileName } from '../src/daemon/config.js';
import { describeHost } from './support/host.js';
import { benchMain } from './support/bench-main.js';
import { measureBaselines, type BaselineRun } from './support/ingest-baselines.js';
import {
  bindRuns,
  HttpClient,
  openHookCalls,
  percentileMs,
  postBodies,
  timeGets,
  type PostRun,
  type TimedSeries,
} from './support/ingest-http.js';
import { renderChunks, workloadEpochS, workloadRuns, type WorkloadRun } from './support/ingest-workload.js';
import { meterProcess, type ProcessCost } from './support/process-meter.js';
import { startProfiledDaemon } from './support/profiled-daemon.js';
import {
  monotonicUs,
  profileLines,
  readThreadCpu,
  threadLine,
  threadRoles,
} from './support/ingest-profile.js';
import { guardRatio } from './support/ratio-guard.js';
import { fillStoreBySql } from './support/store-fill.js';

const { values: flags } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    guard: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    queries: { type: 'boolean' },
    'no-queries': { type: 'boolean', default: false },
    events: { type: 'string' },
    'in-flight': { type: 'string' },
    'store-events': { type: 'string' },
    fill: { type: 'string', default: 'auto' },
    'cpu-prof': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'hook-calls': { type: 'boolean', default: false },
  },
});
const isShort = flags.short;
const isGuard = flags.guard;
const isProfile = flags.profile;
const withQueries = !isProfile && !flags['no-queries'] && (flags.queries ?? !isShort);
const totalEvents = positiveInteger('--events', flags.events, isShort ? 100_000 : 1_000_000);
const inFlight = positiveInteger('--in-flight', flags['in-flight'], 3);
const storeEvents = positiveInteger('--store-events', flags['store-events'], 10_000_000);
const fillMode = parseFillMode(flags.fill);

const runCount = 50;
const boundRuns = 45;
const chunkBytes = 4 * 1024 * 1024;
/** Each rendered part of the workload spreads its events over this many seconds of capture time. */
const partSpanS = 240;
const ingestPath = '/v1/telemetry/ingest?format=native';
/** Requests per query series, and untimed ones before it. */
const queryRequests = 200;
const queryWarmup = 10;
/** Pages followed before the deep cursor is timed. */
const deepPages = 250;
const gib = 1024 ** 3;
const targets = {
  ingest: { ratio_to_csv: 0.5, cpu_us_per_event: 8, peak_rss_bytes: gib },
  grow: { peak_rss_bytes: gib },
  query: { p99_ms: 20 },
} as const;
/** Longest a store fill through HTTP may take (estimated at the measured rate) before auto uses SQL. */
const maxHttpFillS = 300;
/** Longer than the store's seal round (src/provenance/checkpoints.sql.ts), so the batches are sealed. */
const sealRoundMs = 2_500;
/** Hard bound on the whole run; past it the watchdog kills everything. */
const deadlineMs = isShort ? 90_000 : 1_800_000;

const host = describeHost();
const dataDir = makeDataDir();
const scratchDir = mkdtempSync(join(tmpdir(), 'provd-ingest-bench-'));
const profileDir = flags['cpu-prof'] ?? (isProfile ? join(scratchDir, 'profiles') : undefined);
const traceFile = join(scratchDir, 'steps.ndjson');

/** What the guard looks at. */
interface GuardInput {
  http: PostRun;
  expected: number;
  /** Ingest's events/s over the CSV load's. */
  rateToCsv: number | null;
  /** The CSV load's CPU per event over the daemon's, through the answers and through the folds. */
  cpuToCsv: number | null;
  foldedCpuToCsv: number | null;
}

/**
 * Prints one result line with the host, and the 1-minute load average when it was printed: on a
 * shared machine, other work on the same cores moves every number here.
 */
function emit(result: Record<string, unknown>): void {
  const load_1m = Number(loadavg()[0]!.toFixed(2));
  process.stdout.write(`${JSON.stringify({ ...result, load_1m, ...host })}\n`);
}

function eventsPerSec(events: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((events * 1000) / elapsedMs) : 0;
}

function ratio(value: number, reference: number): number | null {
  return reference > 0 ? Number((value / reference).toFixed(3)) : null;
}

/** A baseline's CPU per event over ours: how many of our events one baseline event's CPU pays for. */
function cpuEfficiency(baselineUs: number, oursUs: number | null): number | null {
  return oursUs === null || oursUs <= 0 ? null : ratio(baselineUs, oursUs);
}

/** Runs every phase in order, printing each result as it lands; returns what the guard needs. */
async function runBench(): Promise<GuardInput> {
  const runs = workloadRuns(runCount, boundRuns);
  const part = { seed: 1, events: totalEvents, startS: workloadEpochS, spanS: partSpanS };
  const chunks = [...renderChunks(runs, part, chunkBytes)];
  const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const workload = {
    events: totalEvents,
    bytes,
    chunks: chunks.length,
    runs: runCount,
    bound_runs: boundRuns,
  };

  const baselines = await measureBaselines(chunks, runs, scratchDir);
  const appender = emitBaseline('ingest.baseline.appender', baselines.appender, workload);
  const csv = emitBaseline('ingest.baseline.csv', baselines.csv, workload, appender.rate);

  let daemon = await launchDaemon();
  let client = new HttpClient(daemon.url, inFlight + 1);
  try {
    await bindRuns(client, runs);
    if (flags['hook-calls']) await openHookCalls(client, runs);
    // warm the pool threads and the store up on events of their own, outside the measurement
    const warmup = { seed: 2, events: 20_000, startS: workloadEpochS, spanS: partSpanS };
    const warm = await postBodies(client, ingestPath, renderChunks(runs, warmup, 1024 * 1024), 2);
    if (warm.failures.length > 0) throw new Error(`warm-up ingest failed: ${warm.failures[0]}`);

    const meter = meterProcess(daemon.child.pid!);
    const window = { startUs: monotonicUs(), cpuBefore: readThreadCpu(daemon.child.pid!) };
    const http = await postBodies(client, ingestPath, chunks.values(), inFlight);
    const httpRate = eventsPerSec(http.accepted, http.elapsedMs);
    const rateToCsv = ratio(httpRate, csv.rate);
    const cost = meter(http.accepted);
    const peakRss = cost.peak_rss_bytes;
    // events per CPU second, all daemon threads, over the baseline's: holds still under contention
    const cpuToCsv = cpuEfficiency(csv.cpuUsPerEvent, cost.cpu_us_per_event);
    emit({
      name: 'ingest.http',
      ...postFields(http, cost),
      ratio_to_csv: rateToCsv,
      ratio_to_appender: ratio(httpRate, appender.rate),
      cpu_efficiency_to_csv: cpuToCsv,
      cpu_efficiency_to_appender: cpuEfficiency(appender.cpuUsPerEvent, cost.cpu_us_per_event),
      in_flight: inFlight,
      ...workload,
      target: targets.ingest,
      target_met:
        (rateToCsv ?? 0) >= targets.ingest.ratio_to_csv &&
        (cost.cpu_us_per_event ?? Infinity) <= targets.ingest.cpu_us_per_event &&
        peakRss !== null &&
        peakRss <= targets.ingest.peak_rss_bytes,
    });
    let stored = warm.accepted + http.accepted;
    const answered = { ...window, endUs: monotonicUs(), cpuAfter: readThreadCpu(daemon.child.pid!) };
    emit(threadLine('ingest', { ...answered, roles: threadRoles(daemon.logs), events: http.accepted }));
    const folded = await catchUp(client, runs[0]!, meter, http.accepted);
    const foldedCpuToCsv = cpuEfficiency(csv.cpuUsPerEvent, folded.cpu_us_per_event);
    emit({
      name: 'ingest.http.folded',
      ...folded,
      cpu_efficiency_to_csv: foldedCpuToCsv,
      note: 'daemon CPU through the folds and seals behind the ingest',
    });
    const guarded = { http, expected: totalEvents, rateToCsv, cpuToCsv, foldedCpuToCsv };
    const profiled = { ...window, endUs: monotonicUs(), cpuAfter: readThreadCpu(daemon.child.pid!) };
    const roles = threadRoles(daemon.logs);
    if (isProfile) await stopDaemon(daemon); // the CPU profiles are written when the daemon exits
    for (const line of profileLines({ ...profiled, roles, profileDir, traceFile, events: http.accepted }))
      emit(line);
    if (isProfile) return guarded;

    stored += await measureCli(daemon, chunks, httpRate);

    if (withQueries) {
      const missing = storeEvents - stored;
      if (chooseFill(missing, httpRate) === 'http') stored += await growStore(client, daemon, runs, missing);
      else {
        // stop, copy rows in SQL, start again on the same data dir
        client.close();
        await stopDaemon(daemon);
        stored = await fillStore(missing, httpRate);
        daemon = await launchDaemon();
        client = new HttpClient(daemon.url, inFlight + 1);
      }
      await measureQueries(client, daemon, runs[0]!, stored);
    }
    return guarded;
  } finally {
    client.close();
    await stopDaemon(daemon);
  }
}

/** Starts the daemon on the run's data dir, under --cpu-prof when asked. */
function launchDaemon(): Promise<RunningServer> {
  const env = { PROVD_TRACE_STEPS: traceFile };
  if (profileDir === undefined) return startDaemon({ dataDir, env });
  return startProfiledDaemon({ dataDir, profileDir, env });
}

/**
 * Has the daemon fold every committed event into its rollups (a causality timeline asks for that)
 * and waits for the seal round behind it; returns the daemon's CPU per event from the meter's start.
 */
async function catchUp(
  client: HttpClient,
  run: WorkloadRun,
  meter: (events: number) => ProcessCost,
  events: number,
): Promise<{ cpu_s: number | null; cpu_us_per_event: number | null }> {
  const answer = await client.send('GET', `/v1/timeline?run=${encodeURIComponent(run.runId)}&view=causality`);
  if (answer.status !== 200)
    throw new Error(`catching up the folds: ${answer.status} ${answer.body.toString()}`);
  await new Promise((resolve) => setTimeout(resolve, sealRoundMs));
  const { cpu_s, cpu_us_per_event } = meter(events);
  return { cpu_s, cpu_us_per_event };
}

/** Stops the daemon (idempotent); a non-zero exit is reported, not fatal. */
async function stopDaemon(daemon: RunningServer): Promise<void> {
  const code = await daemon.stop();
  if (code !== 0)
    process.stderr.write(`ingest.bench: warning: the daemon exited with code ${code} on SIGTERM\n`);
}

/** How to grow the store: through HTTP unless, at the rate just measured, that would take too long. */
function chooseFill(missing: number, httpRate: number): 'http' | 'sql' {
  if (fillMode !== 'auto') return fillMode;
  return httpRate > 0 && missing / httpRate <= maxHttpFillS ? 'http' : 'sql';
}

/** Grows the stopped daemon's store in SQL and prints what it did; returns the events it holds. */
async function fillStore(missing: number, httpRate: number): Promise<number> {
  const fill = await fillStoreBySql(join(dataDir, databaseFileName), storeEvents);
  emit({
    name: 'store.fill',
    method: 'sql',
    reason:
      fillMode === 'sql'
        ? '--fill sql'
        : `ingesting ${missing} more events at the measured ${httpRate} events/s would take over ${maxHttpFillS} s`,
    events_before: fill.eventsBefore,
    events_after: fill.eventsAfter,
    copies: fill.copies,
    duration_s: Number((fill.elapsedMs / 1000).toFixed(3)),
    note: 'copies of the ingested events and windows, shifted in seq and time; not an ingest rate',
  });
  return fill.eventsAfter;
}

/** Prints a baseline line; returns its events/s and CPU microseconds per event. */
function emitBaseline(
  name: string,
  run: BaselineRun,
  workload: Record<string, number>,
  appenderRate?: number,
): { rate: number; cpuUsPerEvent: number } {
  const rate = eventsPerSec(run.events, run.elapsedMs);
  const cpuUsPerEvent = Number(((run.cpuMs * 1000) / run.events).toFixed(1));
  emit({
    name,
    events_per_sec: rate,
    duration_s: Number((run.elapsedMs / 1000).toFixed(3)),
    cpu_s: Number((run.cpuMs / 1000).toFixed(2)),
    cpu_us_per_event: cpuUsPerEvent,
    loads: run.loads,
    ...(appenderRate !== undefined && { ratio_to_appender: ratio(rate, appenderRate) }),
    ...workload,
  });
  return { rate, cpuUsPerEvent };
}

/** The fields every posting phase reports. */
function postFields(run: PostRun, cost: ProcessCost): Record<string, unknown> {
  return {
    events_per_sec: eventsPerSec(run.accepted, run.elapsedMs),
    requests_per_sec: Number(((run.latenciesMs.length * 1000) / run.elapsedMs).toFixed(2)),
    p50_ms: percentileMs(run.latenciesMs, 50),
    p99_ms: percentileMs(run.latenciesMs, 99),
    ...cost,
    duration_s: Number((run.elapsedMs / 1000).toFixed(3)),
    requests: run.requests,
    accepted: run.accepted,
    rejected: run.rejected,
    pending: run.pending,
    retries_429: run.retries429,
    failures: run.failures.length,
    ...(run.failures.length > 0 && { first_failure: run.failures[0] }),
  };
}

/**
 * Times `provd ingest FILE --format native --url URL` on the same NDJSON; prints a skipped line
 * while the command does not exist. Returns the events it added to the store.
 */
async function measureCli(
  daemon: RunningServer,
  chunks: readonly Buffer[],
  httpRate: number,
): Promise<number> {
  const name = 'ingest.cli';
  if (isGuard) {
    emit({ name, skipped: '--guard measures the HTTP pipeline only' });
    return 0;
  }
  const probe = spawnSync(process.execPath, [cliPath, 'ingest', '--help'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (probe.status !== 0) {
    const said = `${probe.stdout}${probe.stderr}`.trim().split('\n')[0] ?? '';
    emit({ name, skipped: `\`provd ingest\` is not available in dist/src/cli/main.js yet (${said})` });
    return 0;
  }
  const file = join(scratchDir, 'workload.ndjson');
  const fd = openSync(file, 'w');
  try {
    for (const chunk of chunks) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  const meter = meterProcess(daemon.child.pid!);
  const started = performance.now();
  const { code, stdout, output } = await runCommand([
    cliPath,
    'ingest',
    file,
    '--format',
    'native',
    '--url',
    daemon.url,
  ]);
  const elapsedMs = performance.now() - started;
  const rate = eventsPerSec(totalEvents, elapsedMs);
  emit({
    name,
    events_per_sec: rate,
    ratio_to_http: ratio(rate, httpRate),
    ...meter(totalEvents),
    duration_s: Number((elapsedMs / 1000).toFixed(3)),
    events: totalEvents,
    exit_code: code,
    ...(code === 0 ? { summary: lastJsonLine(stdout) } : { error: output.slice(-500) }),
  });
  if (code !== 0) process.stderr.write(`ingest.bench: warning: provd ingest exited with ${code}\n`);
  return code === 0 ? totalEvents : 0;
}

/** Runs node with `args`; resolves with the exit code, the tail of stdout and of both streams. */
function runCommand(args: string[]): Promise<{ code: number | null; stdout: string; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (part: Buffer) => {
      stdout = (stdout + part.toString()).slice(-4096);
      output = (output + part.toString()).slice(-4096);
    });
    child.stderr.on('data', (part: Buffer) => {
      output = (output + part.toString()).slice(-4096);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, output }));
  });
}

/** The last line of `text` parsed as JSON, or null when it is not JSON. */
function lastJsonLine(text: string): unknown {
  try {
    return JSON.parse(text.trim().split('\n').pop() ?? '') as unknown;
  } catch {
    return null;
  }
}

/** Ingests `count` more generated events through HTTP (fresh seeds, later times); returns those accepted. */
async function growStore(
  client: HttpClient,
  daemon: RunningServer,
  runs: readonly WorkloadRun[],
  count: number,
): Promise<number> {
  if (count <= 0) return 0;
  const perPart = 1_000_000;
  function* bodies(): Generator<Buffer, void, undefined> {
    for (let index = 0, left = count; left > 0; index++, left -= perPart) {
      const startS = workloadEpochS + (index + 1) * partSpanS;
      yield* renderChunks(
        runs,
        { seed: 100 + index, events: Math.min(left, perPart), startS, spanS: partSpanS },
        chunkBytes,
      );
    }
  }
  const meter = meterProcess(daemon.child.pid!);
  const run = await postBodies(client, ingestPath, bodies(), inFlight);
  const cost = meter(run.accepted);
  const peakRss = cost.peak_rss_bytes;
  emit({
    name: 'ingest.http.grow',
    ...postFields(run, cost),
    in_flight: inFlight,
    note: 'the client renders these events while it sends them, on the same cores',
    target: targets.grow,
    target_met: peakRss !== null && peakRss <= targets.grow.peak_rss_bytes,
  });
  if (run.failures.length > 0) throw new Error(`growing the store failed: ${run.failures[0]}`);
  return run.accepted;
}

/** Times the first page, a deep cursor page and a windows query of one run in the grown store. */
async function measureQueries(
  client: HttpClient,
  daemon: RunningServer,
  run: WorkloadRun,
  stored: number,
): Promise<void> {
  const runParam = encodeURIComponent(run.runId);
  const context = { run_id: run.runId, store_events: stored, target: targets.query };
  /** Times one path and prints its line, with the daemon's peak RSS and CPU over the series. */
  const measure = async (name: string, path: string, extra: Record<string, unknown> = {}): Promise<void> => {
    const meter = meterProcess(daemon.child.pid!);
    const series = await timeGets(client, path, queryRequests, queryWarmup);
    const { peak_rss_bytes, cpu_s } = meter(0);
    emitSeries(name, series, { ...context, ...extra, peak_rss_bytes, cpu_s });
  };

  const first = `/v1/telemetry/events?run=${runParam}&limit=100`;
  await measure('query.events.first_page', first);

  // walk the cursor chain in, timing each step, then time repeats of the deepest cursor reached
  let cursor: string | null = null;
  let deepest = '';
  let deepestPage = 0;
  const walk: number[] = [];
  for (let page = 0; page < deepPages; page++) {
    const path: string = cursor === null ? first : `${first}&cursor=${encodeURIComponent(cursor)}`;
    const sent = performance.now();
    const answer = await client.send('GET', path);
    walk.push(performance.now() - sent);
    if (answer.status !== 200)
      throw new Error(`events page ${page}: ${answer.status} ${answer.body.toString()}`);
    cursor = (JSON.parse(answer.body.toString()) as { next_cursor: string | null }).next_cursor;
    if (cursor === null) break; // a small store: the deepest page there is
    deepest = cursor;
    deepestPage = page + 1;
  }
  if (deepest === '') throw new Error(`run ${run.runId} has a single page of events`);
  await measure('query.events.deep_page', `${first}&cursor=${encodeURIComponent(deepest)}`, {
    page: deepestPage, // 0 is the first page
    walk_p50_ms: percentileMs(walk, 50),
    walk_p99_ms: percentileMs(walk, 99),
  });

  const windows = `/v1/telemetry/windows?run=${runParam}&window=10`;
  const probe = await client.send('GET', windows);
  if (probe.status !== 200) {
    const reason = `GET /v1/telemetry/windows answered ${probe.status}: ${probe.body.toString().slice(0, 200)}`;
    emit({ name: 'query.windows', skipped: reason, ...context });
    return;
  }
  await measure('query.windows', windows);
}

/** Prints one query series' line. */
function emitSeries(name: string, series: TimedSeries, context: Record<string, unknown>): void {
  const p99 = percentileMs(series.latenciesMs, 99);
  emit({
    name,
    requests_per_sec: Number(((series.latenciesMs.length * 1000) / series.elapsedMs).toFixed(2)),
    p50_ms: percentileMs(series.latenciesMs, 50),
    p99_ms: p99,
    requests: series.requests,
    failures: series.failures.length,
    ...(series.failures.length > 0 && { first_failure: series.failures[0] }),
    response_bytes: series.lastBody?.length ?? 0,
    ...context,
    target_met: series.failures.length === 0 && p99 <= targets.query.p99_ms,
  });
}

/** Lists why the run fails the guard: failed or short ingest requests, or a rate below the floor. */
function findGuardFailures(input: GuardInput): string[] {
  const { http, expected } = input;
  const failures: string[] = [];
  if (http.failures.length > 0)
    failures.push(`ingest.http: ${http.failures.length} requests failed, first: ${http.failures[0]}`);
  if (http.rejected > 0 || http.accepted !== expected)
    failures.push(
      `ingest.http: accepted ${http.accepted} and rejected ${http.rejected} of ${expected} events`,
    );
  failures.push(
    ...guardRatio('ingest.http.events_per_sec/csv', input.rateToCsv, "events/s over DuckDB's CSV load"),
    ...guardRatio(
      'ingest.http.cpu_efficiency/csv',
      input.cpuToCsv,
      "the CSV load's CPU per event over the daemon's",
    ),
    ...guardRatio(
      'ingest.http.folded.cpu_efficiency/csv',
      input.foldedCpuToCsv,
      "the CSV load's CPU per event over the daemon's, folds and seals included",
    ),
  );
  return failures;
}

/** How --queries grows the store to --store-events: `auto` picks http unless that would take too long. */
function parseFillMode(text: string): 'auto' | 'http' | 'sql' {
  if (text === 'auto' || text === 'http' || text === 'sql') return text;
  throw new Error(`--fill must be auto, http or sql; got "${text}"`);
}

/** Parses a positive integer flag, or returns the default. */
function positiveInteger(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} must be a positive integer`);
  return value;
}

await benchMain({
  name: 'ingest.bench',
  deadlineMs,
  isGuard,
  run: async () => findGuardFailures(await runBench()),
  cleanup: () => {
    removeDir(dataDir);
    removeDir(scratchDir);
  },
});
